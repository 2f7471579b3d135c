package dev.fastpath.hadoop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.PrivilegedExceptionAction;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.crypto.key.KeyProvider;
import org.apache.hadoop.crypto.key.KeyProviderCryptoExtension;
import org.apache.hadoop.crypto.key.KeyProviderCryptoExtension.EncryptedKeyVersion;
import org.apache.hadoop.crypto.key.KeyProviderDelegationTokenExtension;
import org.apache.hadoop.crypto.key.KeyProviderFactory;
import org.apache.hadoop.crypto.key.kms.KMSClientProvider;
import org.apache.hadoop.crypto.key.kms.KMSDelegationToken;
import org.apache.hadoop.io.DataOutputBuffer;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.security.token.delegation.web.DelegationTokenIdentifier;

/**
 * Drives Hadoop's own KMS client (KMSClientProvider through KeyProviderFactory, with the crypto and
 * delegation-token extensions) and Hadoop's token classes, one JSON request per stdin line, one
 * JSON answer per stdout line. Each answer is {"ok":true,...} or {"ok":false,"exception":FQCN,
 * "message":...,"causes":[...]} so the tests can compare Hadoop's own error reporting.
 *
 * <p>Requests carry "user" (the simple-auth user, default "client") and optionally "token" (a
 * Token URL string the call authenticates with instead of user.name). Binary values are URL-safe
 * base64 without padding, as the KMS speaks them.
 */
public final class HadoopClientDriver {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
  private static final Base64.Decoder B64D = Base64.getUrlDecoder();

  private final Configuration conf = new Configuration();
  private final URI providerUri;
  // Kerberos: the login user (from a keytab) makes the calls; "doAs" names a proxied user.
  private boolean kerberos;
  private long lastAnswerAt = System.currentTimeMillis();
  // One provider per caller: a provider keeps its caller's authentication cookie.
  private final Map<String, KeyProvider> providers = new HashMap<>();

  private HadoopClientDriver(URI providerUri) {
    this.providerUri = providerUri;
  }

  public static void main(String[] args) throws Exception {
    HadoopClientDriver driver = new HadoopClientDriver(args.length > 0 ? new URI(args[0]) : null);
    String principal = System.getProperty("fastpath.kerberos.principal");
    if (principal != null) {
      driver.conf.set("hadoop.security.authentication", "kerberos");
      UserGroupInformation.setConfiguration(driver.conf);
      UserGroupInformation.loginUserFromKeytab(principal, System.getProperty("fastpath.kerberos.keytab"));
      driver.kerberos = true;
    }
    serve(driver::handle, () -> driver.lastAnswerAt = System.currentTimeMillis());
    for (KeyProvider provider : driver.providers.values()) provider.close();
    // The client's key-cache refill threads are not daemons: without this the JVM lingers.
    System.exit(0);
  }

  private ObjectNode handle(JsonNode request) throws Exception {
    String op = request.path("op").asText();
    switch (op) {
      case "writeToken":
        return writeToken(request);
      case "readToken":
        return readToken(request.path("urlString").asText());
      case "writeCredentials":
        return writeCredentials(request);
      case "readCredentials":
        return readCredentials(request.path("path").asText());
      case "ctrCodec":
        return CtrCodecVectors.compute(request);
      case "waitUntil": {
        // Waits until the wall clock is afterPreviousMs past the previous answer (a cookie's
        // expiry), checking the clock rather than sleeping a fixed time.
        long until = lastAnswerAt + request.path("afterPreviousMs").asLong();
        while (System.currentTimeMillis() < until) Thread.sleep(20);
        return JSON.createObjectNode();
      }
      default:
        break;
    }
    String user = request.path("user").asText("client");
    String tokenString = request.hasNonNull("token") ? request.get("token").asText() : null;
    UserGroupInformation ugi;
    if (kerberos && tokenString == null) {
      UserGroupInformation login = UserGroupInformation.getLoginUser();
      String doAs = request.hasNonNull("doAs") ? request.get("doAs").asText() : null;
      ugi = doAs == null ? login : UserGroupInformation.createProxyUser(doAs, login);
      user = doAs == null ? "kerberos:" : "kerberos:" + doAs;
    } else {
      ugi = UserGroupInformation.createRemoteUser(user);
    }
    String caller = user;
    UserGroupInformation as = ugi;
    return ugi.doAs(
        (PrivilegedExceptionAction<ObjectNode>) () -> call(op, request, provider(caller, tokenString, as)));
  }

  private KeyProvider provider(String user, String tokenString, UserGroupInformation ugi) throws Exception {
    if (tokenString != null) {
      // A fresh provider whose caller holds only the token: the call authenticates with it.
      KeyProvider fresh = KeyProviderFactory.get(providerUri, conf);
      Token<KMSDelegationToken.KMSDelegationTokenIdentifier> token = new Token<>();
      token.decodeFromUrlString(tokenString);
      token.setService(new Text(((KeyProviderDelegationTokenExtension.DelegationTokenExtension) fresh)
          .getCanonicalServiceName()));
      ugi.addToken(token);
      providers.put("token:" + providers.size(), fresh);
      return fresh;
    }
    KeyProvider provider = providers.get(user);
    if (provider == null) {
      provider = KeyProviderFactory.get(providerUri, conf);
      providers.put(user, provider);
    }
    return provider;
  }

  private ObjectNode call(String op, JsonNode r, KeyProvider provider) throws Exception {
    KeyProviderCryptoExtension crypto = KeyProviderCryptoExtension.createKeyProviderCryptoExtension(provider);
    KeyProviderDelegationTokenExtension.DelegationTokenExtension tokens =
        (KeyProviderDelegationTokenExtension.DelegationTokenExtension) provider;
    ObjectNode answer = JSON.createObjectNode();
    switch (op) {
      case "createKey": {
        KeyProvider.Options options = new KeyProvider.Options(conf);
        if (r.hasNonNull("cipher")) options.setCipher(r.get("cipher").asText());
        if (r.hasNonNull("length")) options.setBitLength(r.get("length").asInt());
        if (r.hasNonNull("description")) options.setDescription(r.get("description").asText());
        KeyProvider.KeyVersion kv = r.hasNonNull("material")
            ? provider.createKey(r.get("name").asText(), B64D.decode(r.get("material").asText()), options)
            : provider.createKey(r.get("name").asText(), options);
        return keyVersion(answer, kv);
      }
      case "rollNewVersion":
        return keyVersion(answer, provider.rollNewVersion(r.get("name").asText()));
      case "invalidateCache":
        provider.invalidateCache(r.get("name").asText());
        return answer;
      case "deleteKey":
        provider.deleteKey(r.get("name").asText());
        return answer;
      case "getKeys": {
        ArrayNode names = answer.putArray("keys");
        for (String name : provider.getKeys()) names.add(name);
        return answer;
      }
      case "getMetadata": {
        KeyProvider.Metadata m = provider.getMetadata(r.get("name").asText());
        if (m == null) return answer.putNull("metadata");
        ObjectNode meta = answer.putObject("metadata");
        meta.put("cipher", m.getCipher());
        meta.put("length", m.getBitLength());
        meta.put("description", m.getDescription());
        meta.put("versions", m.getVersions());
        meta.put("created", m.getCreated() == null ? null : m.getCreated().getTime());
        ObjectNode attributes = meta.putObject("attributes");
        for (Map.Entry<String, String> e : m.getAttributes().entrySet()) attributes.put(e.getKey(), e.getValue());
        return answer;
      }
      case "getCurrentKey":
        return keyVersion(answer, provider.getCurrentKey(r.get("name").asText()));
      case "getKeyVersion":
        return keyVersion(answer, provider.getKeyVersion(r.get("versionName").asText()));
      case "getKeyVersions": {
        ArrayNode list = answer.putArray("versions");
        for (KeyProvider.KeyVersion kv : provider.getKeyVersions(r.get("name").asText())) {
          list.add(keyVersion(JSON.createObjectNode(), kv));
        }
        return answer;
      }
      case "generateEek": {
        ArrayNode list = answer.putArray("eeks");
        for (int i = 0; i < r.path("num").asInt(1); i++) {
          list.add(eek(crypto.generateEncryptedKey(r.get("name").asText())));
        }
        return answer;
      }
      case "decryptEek":
        return keyVersion(answer, crypto.decryptEncryptedKey(toEek(r.get("eek"))));
      case "reencryptEek":
        answer.set("eek", eek(crypto.reencryptEncryptedKey(toEek(r.get("eek")))));
        return answer;
      case "reencryptEeks": {
        List<EncryptedKeyVersion> list = new ArrayList<>();
        for (Iterator<JsonNode> it = r.get("eeks").elements(); it.hasNext(); ) list.add(toEek(it.next()));
        crypto.reencryptEncryptedKeys(list);
        ArrayNode out = answer.putArray("eeks");
        for (EncryptedKeyVersion e : list) out.add(eek(e));
        return answer;
      }
      case "getDelegationToken": {
        Token<?> token = tokens.getDelegationToken(r.path("renewer").asText(null));
        return describeToken(answer, token);
      }
      case "renewDelegationToken":
        answer.put("expiryMs", tokens.renewDelegationToken(parseToken(r.get("urlString").asText())));
        return answer;
      case "cancelDelegationToken":
        tokens.cancelDelegationToken(parseToken(r.get("urlString").asText()));
        return answer;
      default:
        throw new IllegalArgumentException("unknown op " + op);
    }
  }

  private static Token<?> parseToken(String urlString) throws Exception {
    Token<KMSDelegationToken.KMSDelegationTokenIdentifier> token = new Token<>();
    token.decodeFromUrlString(urlString);
    return token;
  }

  /** Writes an identifier and Token from field values with Hadoop's own classes. */
  private static ObjectNode writeToken(JsonNode r) throws Exception {
    DelegationTokenIdentifier id = new DelegationTokenIdentifier(new Text(r.path("kind").asText("kms-dt")),
        new Text(r.get("owner").asText()), new Text(r.get("renewer").asText()), new Text(r.get("realUser").asText()));
    id.setIssueDate(Long.parseLong(r.get("issueDate").asText()));
    id.setMaxDate(Long.parseLong(r.get("maxDate").asText()));
    id.setSequenceNumber(r.get("sequenceNumber").asInt());
    id.setMasterKeyId(r.get("masterKeyId").asInt());
    DataOutputBuffer buffer = new DataOutputBuffer();
    id.write(buffer);
    byte[] identifier = java.util.Arrays.copyOf(buffer.getData(), buffer.getLength());
    Token<?> token = new Token<>(identifier, B64D.decode(r.get("password").asText()),
        new Text(r.path("kind").asText("kms-dt")), new Text(r.path("service").asText("")));
    return describeToken(JSON.createObjectNode(), token);
  }

  /** Decodes a Token URL string with Hadoop's classes and writes it again. */
  /** Hadoop's Credentials token storage file of the given tokens (by alias) in the given format. */
  private ObjectNode writeCredentials(JsonNode r) throws Exception {
    Credentials credentials = new Credentials();
    for (JsonNode entry : r.get("tokens")) {
      credentials.addToken(new Text(entry.get("alias").asText()), parseToken(entry.get("urlString").asText()));
    }
    credentials.writeTokenStorageFile(
        new org.apache.hadoop.fs.Path("file://" + r.get("path").asText()),
        conf,
        "protobuf".equals(r.path("format").asText())
            ? Credentials.SerializedFormat.PROTOBUF
            : Credentials.SerializedFormat.WRITABLE);
    return JSON.createObjectNode();
  }

  /** The tokens of a Credentials token storage file, by alias, as URL strings. */
  private ObjectNode readCredentials(String path) throws Exception {
    Credentials credentials = Credentials.readTokenStorageFile(new java.io.File(path), conf);
    ObjectNode answer = JSON.createObjectNode();
    ArrayNode tokens = answer.putArray("tokens");
    for (Map.Entry<Text, Token<? extends org.apache.hadoop.security.token.TokenIdentifier>> e :
        credentials.getTokenMap().entrySet()) {
      ObjectNode entry = tokens.addObject();
      entry.put("alias", e.getKey().toString());
      entry.put("urlString", e.getValue().encodeToUrlString());
    }
    return answer;
  }

  private static ObjectNode readToken(String urlString) throws Exception {
    return describeToken(JSON.createObjectNode(), parseToken(urlString));
  }

  private static ObjectNode describeToken(ObjectNode answer, Token<?> token) throws Exception {
    answer.put("urlString", token.encodeToUrlString());
    answer.put("kind", token.getKind().toString());
    answer.put("service", token.getService().toString());
    answer.put("identifier", B64.encodeToString(token.getIdentifier()));
    answer.put("password", B64.encodeToString(token.getPassword()));
    KMSDelegationToken.KMSDelegationTokenIdentifier id = new KMSDelegationToken.KMSDelegationTokenIdentifier();
    id.readFields(new DataInputStream(new ByteArrayInputStream(token.getIdentifier())));
    ObjectNode fields = answer.putObject("fields");
    fields.put("owner", id.getOwner().toString());
    fields.put("renewer", id.getRenewer().toString());
    fields.put("realUser", id.getRealUser().toString());
    // Strings: a Java long does not fit a JSON number the TS side reads exactly.
    fields.put("issueDate", Long.toString(id.getIssueDate()));
    fields.put("maxDate", Long.toString(id.getMaxDate()));
    fields.put("sequenceNumber", id.getSequenceNumber());
    fields.put("masterKeyId", id.getMasterKeyId());
    DataOutputBuffer again = new DataOutputBuffer();
    id.write(again);
    answer.put("identifierRewritten", B64.encodeToString(java.util.Arrays.copyOf(again.getData(), again.getLength())));
    return answer;
  }

  private static ObjectNode keyVersion(ObjectNode node, KeyProvider.KeyVersion kv) {
    if (kv == null) return node.putNull("keyVersion");
    node.put("name", kv.getName());
    node.put("versionName", kv.getVersionName());
    node.put("material", kv.getMaterial() == null ? null : B64.encodeToString(kv.getMaterial()));
    return node;
  }

  private static ObjectNode eek(EncryptedKeyVersion e) {
    ObjectNode node = JSON.createObjectNode();
    node.put("keyName", e.getEncryptionKeyName());
    node.put("versionName", e.getEncryptionKeyVersionName());
    node.put("iv", B64.encodeToString(e.getEncryptedKeyIv()));
    node.put("material", B64.encodeToString(e.getEncryptedKeyVersion().getMaterial()));
    node.put("innerVersionName", e.getEncryptedKeyVersion().getVersionName());
    return node;
  }

  private static EncryptedKeyVersion toEek(JsonNode n) {
    return EncryptedKeyVersion.createForDecryption(n.get("keyName").asText(), n.get("versionName").asText(),
        B64D.decode(n.get("iv").asText()), B64D.decode(n.get("material").asText()));
  }

  /** One request of a JSON-lines driver: its answer's fields, or an exception to describe. */
  interface Handler {
    ObjectNode handle(JsonNode request) throws Exception;
  }

  /**
   * The JSON-lines loop every driver of this fixture runs: one request per stdin line, one answer
   * per stdout line, {"ok":true,...} or Hadoop's exception as {@link #describe} puts it.
   */
  static void serve(Handler handler, Runnable afterAnswer) throws Exception {
    PrintStream out = new PrintStream(System.out, true, "UTF-8");
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      if (line.trim().isEmpty()) continue;
      ObjectNode answer;
      try {
        answer = handler.handle(JSON.readTree(line));
        answer.put("ok", true);
      } catch (Throwable t) {
        answer = describe(t);
      }
      out.println(JSON.writeValueAsString(answer));
      afterAnswer.run();
    }
    out.flush();
  }

  private static ObjectNode describe(Throwable t) {
    ObjectNode node = JSON.createObjectNode();
    node.put("ok", false);
    node.put("exception", t.getClass().getName());
    node.put("message", t.getMessage());
    ArrayNode causes = node.putArray("causes");
    for (Throwable c = t.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
      causes.add(c.getClass().getName() + ": " + c.getMessage());
    }
    return node;
  }
}
