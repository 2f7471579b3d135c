// fastpath_gss: the GSS-API calls SASL GSSAPI needs (RFC 4752), on MIT Kerberos's libgssapi_krb5.
//
// Why an addon of its own beside the `kerberos` package (which the KMS's SPNEGO uses): SASL's
// security layers (hadoop.rpc.protection integrity and privacy) wrap every message with the
// context's key, and that package's wrap only ever produces the 4-byte layer choice (its C code
// treats any options object as "agree to no layer"), and its acceptor has no wrap at all, so a
// server cannot offer layers. Here a context is one handle for both roles:
//   initiate(target, flags, login) → ctx (target "service@host", raw Kerberos 5 mechanism;
//                                        login { principal?, keytab?, ccache? }: whose tickets,
//                                        from which client keytab into which cache; MIT gets a
//                                        new ticket from the keytab whenever the cached one ended)
//   accept(login) → ctx                  (login { keytab? }: the service keys; default: the
//                                        keytab libkrb5 is pointed at, KRB5_KTNAME)
//   step(ctx, token | null, callback)    gss_init/accept_sec_context on libuv's thread pool
//                                        (it may talk to the KDC); callback(err, { token,
//                                        complete, flags, initiator? })
//   wrap(ctx, bytes, confidential) → Uint8Array         synchronous: local crypto only
//   unwrap(ctx, bytes) → { data, confidential }          synchronous
// Errors carry GSS's own texts (major and minor status), never key material.
#include <gssapi/gssapi.h>
#include <gssapi/gssapi_ext.h>
#include <gssapi/gssapi_krb5.h>
#include <node_api.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                                \
  do {                                                                                             \
    if ((call) != napi_ok) return NULL;                                                            \
  } while (0)

typedef struct {
  bool initiator;
  gss_name_t target;  // initiator: the service's host-based name
  OM_uint32 req_flags;
  char *principal, *keytab, *ccache;  // initiator's login; NULL: the default cache's
  gss_cred_id_t cred;
  gss_ctx_id_t ctx;
  bool complete;
  bool busy;  // a step is running on the thread pool
} gss_handle;

typedef struct {
  napi_async_work work;
  napi_ref handle_ref;
  napi_ref callback_ref;
  gss_handle *h;
  gss_buffer_desc input;
  gss_buffer_desc output;
  OM_uint32 major, minor, ret_flags;
  char *initiator;  // the initiator's principal, once complete (both roles)
  char *error;
} step_job;

static char *status_text(OM_uint32 major, OM_uint32 minor) {
  // "<major text>: <minor text>" as gss_display_status gives them, first message of each.
  char text[1024];
  size_t used = 0;
  text[0] = '\0';
  OM_uint32 codes[2] = {major, minor};
  int types[2] = {GSS_C_GSS_CODE, GSS_C_MECH_CODE};
  for (int i = 0; i < 2; i++) {
    if (i == 1 && minor == 0) break;
    OM_uint32 ctx = 0, st;
    gss_buffer_desc msg = GSS_C_EMPTY_BUFFER;
    gss_OID mech = i == 1 ? (gss_OID)gss_mech_krb5 : GSS_C_NO_OID;
    if (gss_display_status(&st, codes[i], types[i], mech, &ctx, &msg) == GSS_S_COMPLETE) {
      int n = snprintf(text + used, sizeof text - used, "%s%.*s", used ? ": " : "", (int)msg.length,
                       (const char *)msg.value);
      if (n > 0) used += (size_t)n < sizeof text - used ? (size_t)n : sizeof text - used - 1;
      gss_release_buffer(&st, &msg);
    }
  }
  return strdup(text);
}

static void throw_gss(napi_env env, OM_uint32 major, OM_uint32 minor) {
  char *text = status_text(major, minor);
  napi_throw_error(env, "ERR_GSS", text ? text : "GSS failure");
  free(text);
}

static void finalize_handle(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  gss_handle *h = data;
  OM_uint32 minor;
  if (h->ctx != GSS_C_NO_CONTEXT) gss_delete_sec_context(&minor, &h->ctx, GSS_C_NO_BUFFER);
  if (h->target != GSS_C_NO_NAME) gss_release_name(&minor, &h->target);
  if (h->cred != GSS_C_NO_CREDENTIAL) gss_release_cred(&minor, &h->cred);
  free(h->principal);
  free(h->keytab);
  free(h->ccache);
  free(h);
}

// A handle with no context, name or credentials yet; NULL (with an error thrown) when out of memory.
static gss_handle *alloc_handle(napi_env env, bool initiator) {
  gss_handle *h = calloc(1, sizeof *h);
  if (!h) {
    napi_throw_error(env, "ERR_GSS", "out of memory");
    return NULL;
  }
  h->initiator = initiator;
  h->ctx = GSS_C_NO_CONTEXT;
  h->target = GSS_C_NO_NAME;
  h->cred = GSS_C_NO_CREDENTIAL;
  return h;
}

static napi_value new_handle(napi_env env, gss_handle *h) {
  napi_value external;
  if (napi_create_external(env, h, finalize_handle, NULL, &external) != napi_ok) {
    finalize_handle(env, h, NULL);
    return NULL;
  }
  return external;
}

static gss_handle *get_handle(napi_env env, napi_value value) {
  napi_valuetype type;
  void *data;
  if (napi_typeof(env, value, &type) != napi_ok || type != napi_external) return NULL;
  if (napi_get_value_external(env, value, &data) != napi_ok) return NULL;
  return data;
}

static int get_bytes(napi_env env, napi_value value, void **data, size_t *length) {
  napi_typedarray_type type;
  napi_value buffer;
  size_t offset;
  bool is_typed;
  if (napi_is_typedarray(env, value, &is_typed) != napi_ok || !is_typed) return 0;
  if (napi_get_typedarray_info(env, value, &type, length, data, &buffer, &offset) != napi_ok) return 0;
  return type == napi_uint8_array;
}

static napi_value bytes_value(napi_env env, const void *data, size_t length) {
  napi_value buffer, array;
  void *raw;
  CHECK(napi_create_arraybuffer(env, length, &raw, &buffer));
  if (length) memcpy(raw, data, length);
  CHECK(napi_create_typedarray(env, napi_uint8_array, length, buffer, 0, &array));
  return array;
}

// A string property of `object`, copied; NULL when absent or undefined. Returns 0 on a bad type.
static int optional_string(napi_env env, napi_value object, const char *name, char **out) {
  napi_value value;
  napi_valuetype type;
  size_t len;
  *out = NULL;
  if (napi_get_named_property(env, object, name, &value) != napi_ok) return 0;
  if (napi_typeof(env, value, &type) != napi_ok) return 0;
  if (type == napi_undefined) return 1;
  if (type != napi_string || napi_get_value_string_utf8(env, value, NULL, 0, &len) != napi_ok) return 0;
  *out = malloc(len + 1);
  if (!*out) return 0;
  return napi_get_value_string_utf8(env, value, *out, len + 1, &len) == napi_ok;
}

// initiate(target: string, flags: number, login: { principal?, keytab?, ccache? }) → handle
static napi_value initiate(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  napi_valuetype type;
  char target[1024];
  size_t len;
  uint32_t flags;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  const char *usage = "initiate(target: string, flags: number, login: { principal?, keytab?, ccache? })";
  if (argc != 3 || napi_get_value_string_utf8(env, argv[0], target, sizeof target, &len) != napi_ok ||
      len == 0 || len >= sizeof target - 1 || napi_get_value_uint32(env, argv[1], &flags) != napi_ok ||
      napi_typeof(env, argv[2], &type) != napi_ok || type != napi_object) {
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", usage);
    return NULL;
  }
  gss_handle *h = alloc_handle(env, true);
  if (!h) return NULL;
  if (!optional_string(env, argv[2], "principal", &h->principal) ||
      !optional_string(env, argv[2], "keytab", &h->keytab) ||
      !optional_string(env, argv[2], "ccache", &h->ccache)) {
    finalize_handle(env, h, NULL);
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", usage);
    return NULL;
  }
  h->req_flags = flags;
  gss_buffer_desc name = {len, target};
  OM_uint32 minor, major = gss_import_name(&minor, &name, GSS_C_NT_HOSTBASED_SERVICE, &h->target);
  if (GSS_ERROR(major)) {
    finalize_handle(env, h, NULL);
    throw_gss(env, major, minor);
    return NULL;
  }
  return new_handle(env, h);
}

// accept(login: { keytab? }) → handle
static napi_value accept_ctx(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_valuetype type;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc != 1 || napi_typeof(env, argv[0], &type) != napi_ok || type != napi_object) {
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", "accept(login: { keytab? })");
    return NULL;
  }
  gss_handle *h = alloc_handle(env, false);
  if (!h) return NULL;
  if (!optional_string(env, argv[0], "keytab", &h->keytab)) {
    finalize_handle(env, h, NULL);
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", "accept(login: { keytab? })");
    return NULL;
  }
  return new_handle(env, h);
}

static char *display_name(gss_name_t name) {
  gss_buffer_desc text = GSS_C_EMPTY_BUFFER;
  OM_uint32 st;
  char *out = NULL;
  if (name == GSS_C_NO_NAME) return NULL;
  if (gss_display_name(&st, name, &text, NULL) == GSS_S_COMPLETE) {
    out = strndup(text.value, text.length);
    gss_release_buffer(&st, &text);
  }
  return out;
}

// A context's credentials from its login, through MIT's credential store, so that keytabs and
// caches are this context's own choice, not the process environment's: an initiator's client
// keytab and cache, an acceptor's (service) keytab.
static OM_uint32 acquire_cred(gss_handle *h, OM_uint32 *minor) {
  gss_key_value_element_desc elements[2];
  gss_key_value_set_desc store = {0, elements};
  if (h->keytab)
    elements[store.count++] = (gss_key_value_element_desc){h->initiator ? "client_keytab" : "keytab", h->keytab};
  if (h->ccache) elements[store.count++] = (gss_key_value_element_desc){"ccache", h->ccache};
  gss_name_t name = GSS_C_NO_NAME;
  OM_uint32 major;
  if (h->principal) {
    gss_buffer_desc text = {strlen(h->principal), h->principal};
    major = gss_import_name(minor, &text, (gss_OID)GSS_KRB5_NT_PRINCIPAL_NAME, &name);
    if (GSS_ERROR(major)) return major;
  }
  gss_OID_set_desc mechs = {1, (gss_OID)gss_mech_krb5};
  major = gss_acquire_cred_from(minor, name, GSS_C_INDEFINITE, &mechs, h->initiator ? GSS_C_INITIATE : GSS_C_ACCEPT,
                                &store, &h->cred, NULL, NULL);
  if (name != GSS_C_NO_NAME) {
    OM_uint32 ignored;
    gss_release_name(&ignored, &name);
  }
  return major;
}

static void step_execute(napi_env env, void *data) {
  (void)env;
  step_job *job = data;
  gss_handle *h = job->h;
  OM_uint32 minor = 0;
  if (h->ctx == GSS_C_NO_CONTEXT && h->cred == GSS_C_NO_CREDENTIAL && (h->principal || h->keytab || h->ccache)) {
    job->major = acquire_cred(h, &minor);
    if (GSS_ERROR(job->major)) {
      job->minor = minor;
      job->error = status_text(job->major, minor);
      return;
    }
  }
  if (h->initiator) {
    job->major = gss_init_sec_context(&minor, h->cred, &h->ctx, h->target,
                                      (gss_OID)gss_mech_krb5, h->req_flags, 0, GSS_C_NO_CHANNEL_BINDINGS,
                                      job->input.length ? &job->input : GSS_C_NO_BUFFER, NULL,
                                      &job->output, &job->ret_flags, NULL);
    if (job->major == GSS_S_COMPLETE) {
      gss_name_t self = GSS_C_NO_NAME;
      if (gss_inquire_context(&job->minor, h->ctx, &self, NULL, NULL, NULL, NULL, NULL, NULL) ==
          GSS_S_COMPLETE)
        job->initiator = display_name(self);
      if (self != GSS_C_NO_NAME) gss_release_name(&job->minor, &self);
    }
  } else {
    gss_name_t source = GSS_C_NO_NAME;
    job->major = gss_accept_sec_context(&minor, &h->ctx, h->cred, &job->input,
                                        GSS_C_NO_CHANNEL_BINDINGS, &source, NULL, &job->output,
                                        &job->ret_flags, NULL, NULL);
    if (job->major == GSS_S_COMPLETE) job->initiator = display_name(source);
    if (source != GSS_C_NO_NAME) gss_release_name(&minor, &source);
  }
  job->minor = minor;
  if (GSS_ERROR(job->major)) job->error = status_text(job->major, minor);
  else if (job->major == GSS_S_COMPLETE) h->complete = true;
}

static void step_complete(napi_env env, napi_status status, void *data) {
  step_job *job = data;
  napi_value callback, global, args[2], result, value;
  OM_uint32 minor;
  job->h->busy = false;
  napi_get_reference_value(env, job->callback_ref, &callback);
  napi_get_global(env, &global);
  napi_get_null(env, &args[0]);
  napi_get_undefined(env, &args[1]);
  if (status != napi_ok || job->error) {
    napi_value message, code;
    napi_create_string_utf8(env, job->error ? job->error : "the GSS step was cancelled", NAPI_AUTO_LENGTH,
                            &message);
    napi_create_string_utf8(env, "ERR_GSS", NAPI_AUTO_LENGTH, &code);
    napi_create_error(env, code, message, &args[0]);
  } else {
    napi_create_object(env, &result);
    value = bytes_value(env, job->output.value, job->output.length);
    if (value) napi_set_named_property(env, result, "token", value);
    napi_get_boolean(env, job->h->complete, &value);
    napi_set_named_property(env, result, "complete", value);
    napi_create_uint32(env, job->ret_flags, &value);
    napi_set_named_property(env, result, "flags", value);
    if (job->initiator) {
      napi_create_string_utf8(env, job->initiator, NAPI_AUTO_LENGTH, &value);
      napi_set_named_property(env, result, "initiator", value);
    }
    args[1] = result;
  }
  napi_call_function(env, global, callback, 2, args, NULL);
  if (job->output.length) gss_release_buffer(&minor, &job->output);
  free(job->input.value);
  free(job->initiator);
  free(job->error);
  napi_delete_reference(env, job->callback_ref);
  napi_delete_reference(env, job->handle_ref);
  napi_delete_async_work(env, job->work);
  free(job);
}

// step(handle, token: Uint8Array | null, callback(err, { token, complete, flags, peer? }))
static napi_value step(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3], name;
  napi_valuetype type;
  void *bytes = NULL;
  size_t length = 0;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  gss_handle *h = argc == 3 ? get_handle(env, argv[0]) : NULL;
  bool no_token = argc == 3 && napi_typeof(env, argv[1], &type) == napi_ok && type == napi_null;
  if (!h || (!no_token && !get_bytes(env, argv[1], &bytes, &length)) ||
      napi_typeof(env, argv[2], &type) != napi_ok || type != napi_function) {
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", "step(handle, token: Uint8Array | null, callback)");
    return NULL;
  }
  if (h->busy || h->complete || (!h->initiator && length == 0)) {
    napi_throw_error(env, "ERR_GSS", h->busy       ? "a step is already running on this context"
                                     : h->complete ? "the context is already established"
                                                   : "the acceptor needs the initiator's token");
    return NULL;
  }
  step_job *job = calloc(1, sizeof *job);
  if (!job) {
    napi_throw_error(env, "ERR_GSS", "out of memory");
    return NULL;
  }
  job->h = h;
  if (length) {
    job->input.value = malloc(length);
    if (!job->input.value) {
      free(job);
      napi_throw_error(env, "ERR_GSS", "out of memory");
      return NULL;
    }
    memcpy(job->input.value, bytes, length);
    job->input.length = length;
  }
  CHECK(napi_create_reference(env, argv[0], 1, &job->handle_ref));
  CHECK(napi_create_reference(env, argv[2], 1, &job->callback_ref));
  CHECK(napi_create_string_utf8(env, "fastpath:gss-step", NAPI_AUTO_LENGTH, &name));
  CHECK(napi_create_async_work(env, NULL, name, step_execute, step_complete, job, &job->work));
  h->busy = true;
  CHECK(napi_queue_async_work(env, job->work));
  return NULL;
}

static gss_handle *ready_handle(napi_env env, napi_value value, const char *usage) {
  gss_handle *h = get_handle(env, value);
  if (!h) {
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", usage);
    return NULL;
  }
  if (!h->complete || h->busy) {
    napi_throw_error(env, "ERR_GSS", "the context is not established");
    return NULL;
  }
  return h;
}

// wrap(handle, bytes: Uint8Array, confidential: boolean) → Uint8Array
static napi_value wrap(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3], result;
  void *bytes;
  size_t length;
  bool confidential;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  const char *usage = "wrap(handle, bytes: Uint8Array, confidential: boolean)";
  if (argc != 3 || !get_bytes(env, argv[1], &bytes, &length) ||
      napi_get_value_bool(env, argv[2], &confidential) != napi_ok) {
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", usage);
    return NULL;
  }
  gss_handle *h = ready_handle(env, argv[0], usage);
  if (!h) return NULL;
  gss_buffer_desc in = {length, bytes}, out = GSS_C_EMPTY_BUFFER;
  int conf_state = 0;
  OM_uint32 minor, major = gss_wrap(&minor, h->ctx, confidential, GSS_C_QOP_DEFAULT, &in, &conf_state, &out);
  if (GSS_ERROR(major)) {
    throw_gss(env, major, minor);
    return NULL;
  }
  if (confidential && !conf_state) {
    gss_release_buffer(&minor, &out);
    napi_throw_error(env, "ERR_GSS", "the context cannot encrypt (no confidentiality)");
    return NULL;
  }
  result = bytes_value(env, out.value, out.length);
  gss_release_buffer(&minor, &out);
  return result;
}

// unwrap(handle, bytes: Uint8Array) → { data: Uint8Array, confidential: boolean }
static napi_value unwrap(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2], result, value;
  void *bytes;
  size_t length;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  const char *usage = "unwrap(handle, bytes: Uint8Array)";
  if (argc != 2 || !get_bytes(env, argv[1], &bytes, &length)) {
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", usage);
    return NULL;
  }
  gss_handle *h = ready_handle(env, argv[0], usage);
  if (!h) return NULL;
  gss_buffer_desc in = {length, bytes}, out = GSS_C_EMPTY_BUFFER;
  int conf_state = 0;
  OM_uint32 minor, major = gss_unwrap(&minor, h->ctx, &in, &out, &conf_state, NULL);
  // Replays and messages out of order are errors here: the peers' sequence numbers must agree.
  if (GSS_ERROR(major)) {
    throw_gss(env, major, minor);
    return NULL;
  }
  if (major & (GSS_S_DUPLICATE_TOKEN | GSS_S_OLD_TOKEN | GSS_S_UNSEQ_TOKEN | GSS_S_GAP_TOKEN)) {
    if (out.length) gss_release_buffer(&minor, &out);
    napi_throw_error(env, "ERR_GSS", "a wrapped message was replayed, or came out of order");
    return NULL;
  }
  CHECK(napi_create_object(env, &result));
  value = bytes_value(env, out.value, out.length);
  gss_release_buffer(&minor, &out);
  if (!value) return NULL;
  CHECK(napi_set_named_property(env, result, "data", value));
  CHECK(napi_get_boolean(env, conf_state != 0, &value));
  CHECK(napi_set_named_property(env, result, "confidential", value));
  return result;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"initiate", NULL, initiate, NULL, NULL, NULL, napi_enumerable, NULL},
      {"accept", NULL, accept_ctx, NULL, NULL, NULL, napi_enumerable, NULL},
      {"step", NULL, step, NULL, NULL, NULL, napi_enumerable, NULL},
      {"wrap", NULL, wrap, NULL, NULL, NULL, napi_enumerable, NULL},
      {"unwrap", NULL, unwrap, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  CHECK(napi_define_properties(env, exports, sizeof props / sizeof *props, props));
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
