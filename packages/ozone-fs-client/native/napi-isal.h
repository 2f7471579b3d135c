// What the two ISA-L addons (isal/isal-ec.c, bulk/bulk.c) share: argument checks and the loading
// of libisal. Static functions in a header: each addon is one file, built on its own.
#ifndef FASTPATH_NAPI_ISAL_H
#define FASTPATH_NAPI_ISAL_H

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

#include <node_api.h>

#define CHECK(call)                                                                                \
  do {                                                                                             \
    if ((call) != napi_ok) return NULL;                                                            \
  } while (0)

static napi_value type_error(napi_env env, const char *message) {
  napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", message);
  return NULL;
}

// Whether `value` is a Uint8Array (a Buffer is one); if so, its bytes and length.
static int get_bytes(napi_env env, napi_value value, uint8_t **data, size_t *length) {
  napi_typedarray_type type;
  napi_value buffer;
  size_t offset;
  void *raw;
  bool is_typed;
  if (napi_is_typedarray(env, value, &is_typed) != napi_ok || !is_typed) return 0;
  if (napi_get_typedarray_info(env, value, &type, length, &raw, &buffer, &offset) != napi_ok) return 0;
  if (type != napi_uint8_array) return 0;
  *data = raw;
  return 1;
}

// Opens libisal.so.2 and looks up each of `names` into `symbols`; 1 when all are found, else 0
// with a JS error thrown. RTLD_DEEPBIND, as Hadoop's isal_load.c opens it: the node binary
// exports a `gf_mul` of its own, and a plainly linked libisal would call that one from its scalar
// path (small cells) and crash.
static int open_isal(napi_env env, const char *const *names, void **symbols, int count) {
  void *lib = dlopen("libisal.so.2", RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  const char *missing = NULL;
  for (int i = 0; lib != NULL && i < count; i++)
    if ((symbols[i] = dlsym(lib, names[i])) == NULL) missing = names[i];
  if (lib != NULL && missing == NULL) return 1;
  char text[300];
  snprintf(text, sizeof text, "cannot load ISA-L (libisal.so.2): %s%s", lib == NULL ? dlerror() : "no symbol ",
           lib == NULL ? "" : missing);
  napi_throw_error(env, "ERR_DLOPEN_FAILED", text);
  return 0;
}

#endif
