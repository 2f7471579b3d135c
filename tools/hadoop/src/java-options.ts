/**
 * JVM flags Hadoop 3.4 needs on Java 17: Jersey 1's JAXB and Hadoop's reflection open JDK
 * internals that Java 17 closes by default (without java.lang, KMSWebServer fails at start with
 * InaccessibleObjectException from com.sun.xml.bind's Injector).
 */
export const HADOOP_JAVA_17_OPENS: readonly string[] = Object.freeze([
  '--add-opens=java.base/java.lang=ALL-UNNAMED',
  '--add-opens=java.base/java.lang.reflect=ALL-UNNAMED',
  '--add-opens=java.base/java.util=ALL-UNNAMED',
  '--add-opens=java.base/java.net=ALL-UNNAMED',
  '--add-opens=java.base/sun.net.www.protocol.http=ALL-UNNAMED',
]);
