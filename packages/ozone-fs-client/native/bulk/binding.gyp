{
  "targets": [
    {
      "target_name": "fastpath_bulk",
      "sources": ["bulk.c"],
      "cflags": ["-O2", "-Wall", "-Wextra", "-Werror"],
      "defines": ["NAPI_VERSION=8"],
      "libraries": ["-ldl"]
    }
  ]
}
