{
  "targets": [
    {
      "target_name": "fastpath_isal_ec",
      "sources": ["isal-ec.c"],
      "cflags": ["-O2", "-Wall", "-Wextra", "-Werror"],
      "defines": ["NAPI_VERSION=8"],
      "libraries": ["-ldl"]
    }
  ]
}
