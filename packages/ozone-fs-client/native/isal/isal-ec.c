// fastpath_isal_ec: ISA-L's erasure-code kernel (Debian's libisal) for the TypeScript coders.
// The coders build every matrix themselves (Hadoop's Cauchy encode rows, its decode rows); this
// addon only expands a coefficient matrix into ISA-L's tables and applies them to cells with
// ec_encode_data, the SIMD loop Hadoop's native coder runs. So the bytes are the TypeScript
// coder's, and the addon is optional: without it the TypeScript kernel does the same work.
//
// libisal.so.2 is opened with dlopen (see open_isal in ../napi-isal.h).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <isa-l/erasure_code.h>
#include <node_api.h>

#include "../napi-isal.h"

// d + p < 256 for Hadoop's RS coders.
#define MAX_UNITS 255

typedef void (*ec_init_tables_fn)(int, int, unsigned char *, unsigned char *);
typedef void (*ec_encode_data_fn)(int, int, int, unsigned char *, unsigned char **, unsigned char **);
static ec_init_tables_fn isal_init_tables;
static ec_encode_data_fn isal_encode_data;

static int get_cells(napi_env env, napi_value array, uint32_t count, size_t min_len, uint8_t **cells) {
  uint32_t n;
  bool is_array;
  if (napi_is_array(env, array, &is_array) != napi_ok || !is_array) return 0;
  if (napi_get_array_length(env, array, &n) != napi_ok || n != count) return 0;
  for (uint32_t i = 0; i < n; i++) {
    napi_value cell;
    size_t len;
    if (napi_get_element(env, array, i, &cell) != napi_ok) return 0;
    if (!get_bytes(env, cell, &cells[i], &len) || len < min_len) return 0;
  }
  return 1;
}

// initTables(k, rows, coefs: Uint8Array of rows × k) → Uint8Array of 32 × k × rows
static napi_value init_tables(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3], result, buffer;
  int32_t k, rows;
  uint8_t *coefs, *tables;
  size_t coefs_len;
  void *raw;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc != 3 || napi_get_value_int32(env, argv[0], &k) != napi_ok ||
      napi_get_value_int32(env, argv[1], &rows) != napi_ok || k < 1 || rows < 1 || k + rows > MAX_UNITS ||
      !get_bytes(env, argv[2], &coefs, &coefs_len) || coefs_len != (size_t)k * (size_t)rows)
    return type_error(env, "initTables(k, rows, coefs): coefs must be a Uint8Array of rows × k");
  CHECK(napi_create_arraybuffer(env, (size_t)32 * k * rows, &raw, &buffer));
  tables = raw;
  isal_init_tables(k, rows, coefs, tables);
  CHECK(napi_create_typedarray(env, napi_uint8_array, (size_t)32 * k * rows, buffer, 0, &result));
  return result;
}

// encodeData(len, k, rows, tables, inputs: Uint8Array[k], outputs: Uint8Array[rows])
static napi_value encode_data(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value argv[6];
  int32_t len, k, rows;
  uint8_t *tables, *inputs[MAX_UNITS], *outputs[MAX_UNITS];
  size_t tables_len;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc != 6 || napi_get_value_int32(env, argv[0], &len) != napi_ok ||
      napi_get_value_int32(env, argv[1], &k) != napi_ok || napi_get_value_int32(env, argv[2], &rows) != napi_ok ||
      len < 0 || k < 1 || rows < 1 || k + rows > MAX_UNITS || !get_bytes(env, argv[3], &tables, &tables_len) ||
      tables_len != (size_t)32 * k * rows || !get_cells(env, argv[4], (uint32_t)k, (size_t)len, inputs) ||
      !get_cells(env, argv[5], (uint32_t)rows, (size_t)len, outputs))
    return type_error(env, "encodeData(len, k, rows, tables, inputs, outputs): bad arguments");
  if (len > 0) isal_encode_data(len, k, rows, tables, inputs, outputs);
  return NULL;
}

static napi_value Init(napi_env env, napi_value exports) {
  if (isal_encode_data == NULL) {
    static const char *const names[] = {"ec_init_tables", "ec_encode_data"};
    void *symbols[2];
    if (!open_isal(env, names, symbols, 2)) return NULL;
    isal_init_tables = (ec_init_tables_fn)symbols[0];
    isal_encode_data = (ec_encode_data_fn)symbols[1];
  }
  napi_property_descriptor props[] = {
      {"initTables", NULL, init_tables, NULL, NULL, NULL, napi_enumerable, NULL},
      {"encodeData", NULL, encode_data, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  CHECK(napi_define_properties(env, exports, sizeof props / sizeof props[0], props));
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
