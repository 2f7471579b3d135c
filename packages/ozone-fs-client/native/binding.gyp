{
  "targets": [
    {
      "target_name": "fastpath_unix_fd",
      "sources": ["unix-fd.c"],
      "cflags": ["-O2", "-Wall", "-Wextra", "-Werror"],
      "defines": ["NAPI_VERSION=8"]
    }
  ]
}
