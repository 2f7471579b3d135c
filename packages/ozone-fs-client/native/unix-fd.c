// fastpath_unix_fd: the few Unix-socket calls Node's `net` does not offer. Node can listen on
// and connect to a Unix domain socket, but it reads every byte itself and drops file descriptors
// that arrive as SCM_RIGHTS ancillary data, so a client that must receive a block file's
// descriptor reads the socket with recvmsg here instead. Everything is non-blocking on the
// calling thread: `receive` waits (poll with a deadline) on a libuv worker thread.
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <node_api.h>

// Most descriptors one message may carry (Ozone passes one per block file).
#define MAX_FDS 16

#define CHECK(call)                                                                                \
  do {                                                                                             \
    if ((call) != napi_ok) return NULL;                                                            \
  } while (0)

// An Error with the C errno (`errno`, positive) and the call that failed (`syscall`); the
// TypeScript side names the code with util.getSystemErrorName.
static napi_value make_errno_error(napi_env env, const char *syscall, int err) {
  napi_value message, error, errno_value, syscall_value;
  char text[160];
  snprintf(text, sizeof text, "%s: %s", syscall, strerror(err));
  if (napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &message) != napi_ok) return NULL;
  if (napi_create_error(env, NULL, message, &error) != napi_ok) return NULL;
  if (napi_create_int32(env, err, &errno_value) != napi_ok) return NULL;
  if (napi_create_string_utf8(env, syscall, NAPI_AUTO_LENGTH, &syscall_value) != napi_ok) return NULL;
  napi_set_named_property(env, error, "errno", errno_value);
  napi_set_named_property(env, error, "syscall", syscall_value);
  return error;
}

static napi_value throw_errno(napi_env env, const char *syscall, int err) {
  napi_value error = make_errno_error(env, syscall, err);
  if (error) napi_throw(env, error);
  return NULL;
}

static int get_fd(napi_env env, napi_value value, int *fd) {
  if (napi_get_value_int32(env, value, fd) != napi_ok || *fd < 0) {
    napi_throw_type_error(env, NULL, "a file descriptor must be a non-negative integer");
    return 0;
  }
  return 1;
}

// connect(path) -> fd: a non-blocking, close-on-exec stream socket connected to `path`.
static napi_value Connect(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  struct sockaddr_un addr;
  memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  size_t length = 0;
  if (argc < 1 ||
      napi_get_value_string_utf8(env, argv[0], addr.sun_path, sizeof addr.sun_path, &length) != napi_ok) {
    napi_throw_type_error(env, NULL, "connect(path) needs the socket path as a string");
    return NULL;
  }
  // A path that filled the buffer may have been cut: refuse it rather than connect elsewhere.
  if (length == 0 || length >= sizeof addr.sun_path - 1) return throw_errno(env, "connect", ENAMETOOLONG);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return throw_errno(env, "socket", errno);
  if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0 && errno != EINPROGRESS) {
    int err = errno;
    close(fd);
    return throw_errno(env, "connect", err);
  }
  napi_value result;
  CHECK(napi_create_int32(env, fd, &result));
  return result;
}

// send(fd, data, fds) -> bytes sent: one sendmsg, never blocking (EAGAIN is thrown), with the
// descriptors in `fds` attached as SCM_RIGHTS.
static napi_value Send(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int fd;
  if (argc < 3) {
    napi_throw_type_error(env, NULL, "send(fd, data, fds) takes three arguments");
    return NULL;
  }
  if (!get_fd(env, argv[0], &fd)) return NULL;
  void *data;
  size_t length;
  bool is_buffer = false;
  CHECK(napi_is_buffer(env, argv[1], &is_buffer));
  if (!is_buffer) {
    napi_throw_type_error(env, NULL, "send: data must be a Buffer");
    return NULL;
  }
  CHECK(napi_get_buffer_info(env, argv[1], &data, &length));
  bool is_array = false;
  uint32_t count = 0;
  CHECK(napi_is_array(env, argv[2], &is_array));
  if (!is_array) {
    napi_throw_type_error(env, NULL, "send: fds must be an array");
    return NULL;
  }
  CHECK(napi_get_array_length(env, argv[2], &count));
  if (count > MAX_FDS) return throw_errno(env, "sendmsg", EINVAL);
  int fds[MAX_FDS];
  for (uint32_t i = 0; i < count; i++) {
    napi_value element;
    CHECK(napi_get_element(env, argv[2], i, &element));
    if (!get_fd(env, element, &fds[i])) return NULL;
  }
  struct iovec iov = {.iov_base = data, .iov_len = length};
  struct msghdr msg;
  memset(&msg, 0, sizeof msg);
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  union {
    char buf[CMSG_SPACE(sizeof(int) * MAX_FDS)];
    struct cmsghdr align;
  } control;
  if (count > 0) {
    memset(&control, 0, sizeof control);
    msg.msg_control = control.buf;
    msg.msg_controllen = CMSG_SPACE(sizeof(int) * count);
    struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(sizeof(int) * count);
    memcpy(CMSG_DATA(cmsg), fds, sizeof(int) * count);
  }
  ssize_t sent;
  do {
    sent = sendmsg(fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
  } while (sent < 0 && errno == EINTR);
  if (sent < 0) return throw_errno(env, "sendmsg", errno);
  napi_value result;
  CHECK(napi_create_int64(env, (int64_t)sent, &result));
  return result;
}

typedef struct {
  int fd;
  size_t max_bytes;
  int timeout_ms;
  char *data;
  ssize_t received;
  int fds[MAX_FDS];
  int fd_count;
  int err;
  const char *syscall;
  napi_deferred deferred;
  napi_async_work work;
} receive_request;

static int64_t monotonic_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

// On a worker thread: wait until the socket is readable (or the deadline passes), then one
// recvmsg that keeps any descriptors that came with the bytes.
static void receive_execute(napi_env env, void *arg) {
  (void)env;
  receive_request *r = arg;
  int64_t deadline = monotonic_ms() + r->timeout_ms;
  for (;;) {
    int64_t left = deadline - monotonic_ms();
    if (left < 0) left = 0;
    struct pollfd p = {.fd = r->fd, .events = POLLIN};
    int ready = poll(&p, 1, (int)left);
    if (ready < 0) {
      if (errno == EINTR) continue;
      r->err = errno;
      r->syscall = "poll";
      return;
    }
    if (ready == 0) {
      r->err = ETIMEDOUT;
      r->syscall = "recvmsg";
      return;
    }
    if (p.revents & POLLNVAL) {
      r->err = EBADF;
      r->syscall = "poll";
      return;
    }
    struct iovec iov = {.iov_base = r->data, .iov_len = r->max_bytes};
    union {
      char buf[CMSG_SPACE(sizeof(int) * MAX_FDS)];
      struct cmsghdr align;
    } control;
    struct msghdr msg;
    memset(&msg, 0, sizeof msg);
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.buf;
    msg.msg_controllen = sizeof control.buf;
    ssize_t n = recvmsg(r->fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
      r->err = errno;
      r->syscall = "recvmsg";
      return;
    }
    r->received = n;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
      int count = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
      for (int i = 0; i < count && r->fd_count < MAX_FDS; i++)
        memcpy(&r->fds[r->fd_count++], CMSG_DATA(c) + i * sizeof(int), sizeof(int));
    }
    // Descriptors cut off by the kernel are lost to us: say so instead of returning some of them.
    if (msg.msg_flags & MSG_CTRUNC) {
      for (int i = 0; i < r->fd_count; i++) close(r->fds[i]);
      r->fd_count = 0;
      r->err = EMSGSIZE;
      r->syscall = "recvmsg";
    }
    return;
  }
}

static void receive_complete(napi_env env, napi_status status, void *arg) {
  receive_request *r = arg;
  napi_value outcome = NULL;
  bool ok = false;
  if (status != napi_ok) {
    outcome = make_errno_error(env, "recvmsg", ECANCELED);
  } else if (r->err != 0) {
    outcome = make_errno_error(env, r->syscall, r->err);
  } else {
    napi_value data, fds, element;
    if (napi_create_object(env, &outcome) == napi_ok &&
        napi_create_buffer_copy(env, (size_t)r->received, r->data, NULL, &data) == napi_ok &&
        napi_create_array_with_length(env, (size_t)r->fd_count, &fds) == napi_ok) {
      ok = true;
      for (int i = 0; i < r->fd_count && ok; i++)
        ok = napi_create_int32(env, r->fds[i], &element) == napi_ok &&
             napi_set_element(env, fds, (uint32_t)i, element) == napi_ok;
      ok = ok && napi_set_named_property(env, outcome, "data", data) == napi_ok &&
           napi_set_named_property(env, outcome, "fds", fds) == napi_ok;
    }
    if (!ok) {
      for (int i = 0; i < r->fd_count; i++) close(r->fds[i]);
      outcome = make_errno_error(env, "recvmsg", ENOMEM);
    }
  }
  if (ok)
    napi_resolve_deferred(env, r->deferred, outcome);
  else
    napi_reject_deferred(env, r->deferred, outcome);
  napi_delete_async_work(env, r->work);
  free(r->data);
  free(r);
}

// receive(fd, maxBytes, timeoutMs) -> Promise<{ data: Buffer, fds: number[] }>: data is empty at
// the end of the stream; a wait past timeoutMs rejects with ETIMEDOUT.
static napi_value Receive(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 3) {
    napi_throw_type_error(env, NULL, "receive(fd, maxBytes, timeoutMs) takes three arguments");
    return NULL;
  }
  int fd, max_bytes, timeout_ms;
  if (!get_fd(env, argv[0], &fd)) return NULL;
  if (napi_get_value_int32(env, argv[1], &max_bytes) != napi_ok || max_bytes < 1 ||
      napi_get_value_int32(env, argv[2], &timeout_ms) != napi_ok || timeout_ms < 0) {
    napi_throw_type_error(env, NULL, "receive: maxBytes must be ≥ 1 and timeoutMs ≥ 0 (integers)");
    return NULL;
  }
  receive_request *r = calloc(1, sizeof *r);
  if (r) r->data = malloc((size_t)max_bytes);
  if (!r || !r->data) {
    if (r) free(r);
    return throw_errno(env, "receive", ENOMEM);
  }
  r->fd = fd;
  r->max_bytes = (size_t)max_bytes;
  r->timeout_ms = timeout_ms;
  napi_value promise, name;
  if (napi_create_promise(env, &r->deferred, &promise) != napi_ok ||
      napi_create_string_utf8(env, "fastpath_unix_fd.receive", NAPI_AUTO_LENGTH, &name) != napi_ok ||
      napi_create_async_work(env, NULL, name, receive_execute, receive_complete, r, &r->work) != napi_ok ||
      napi_queue_async_work(env, r->work) != napi_ok) {
    free(r->data);
    free(r);
    return NULL;
  }
  return promise;
}

// close(fd): closes a descriptor this addon (or a peer) handed over.
static napi_value Close(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int fd;
  if (argc < 1 || !get_fd(env, argv[0], &fd)) return NULL;
  // Linux releases the descriptor even when close reports EINTR: never retry.
  if (close(fd) != 0 && errno != EINTR) return throw_errno(env, "close", errno);
  return NULL;
}

static napi_value Init(napi_env env, napi_value exports) {
  napi_property_descriptor methods[] = {
      {"connect", NULL, Connect, NULL, NULL, NULL, napi_default, NULL},
      {"send", NULL, Send, NULL, NULL, NULL, napi_default, NULL},
      {"receive", NULL, Receive, NULL, NULL, NULL, napi_default, NULL},
      {"close", NULL, Close, NULL, NULL, NULL, napi_default, NULL},
  };
  CHECK(napi_define_properties(env, exports, sizeof methods / sizeof methods[0], methods));
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
