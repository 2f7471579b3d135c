{
  "targets": [
    {
      "target_name": "fastpath_gss",
      "sources": ["gss.c"],
      "cflags": ["-O2", "-Wall", "-Wextra", "-Werror"],
      "defines": ["NAPI_VERSION=8"],
      "libraries": ["-lgssapi_krb5"]
    }
  ]
}
