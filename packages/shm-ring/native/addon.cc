// N-API glue for the shm-ring addon: argument checks, errno errors, ArrayBuffer lifetime.
// Layout and syscalls live in ring.h; the ring logic runs in JavaScript (src/ring.ts).
#include <napi.h>

#include <cstring>
#include <mutex>
#include <unordered_map>

#include "ring.h"

namespace {

struct Mapping {
  void* addr;
  size_t bytes;
  bool unmapped;
};

// Live mappings by address. A Mapping is owned by its ArrayBuffer's finalizer (passed as the
// finalizer hint, never looked up by address there): after an explicit unmap the kernel may hand
// the same address to the next segment, and a late finalizer of the old, detached buffer must not
// unmap the new one.
std::mutex gMutex;
std::unordered_map<void*, Mapping*> gLive;

void Finalize(Napi::Env, void*, Mapping* m) {
  bool unmap = false;
  {
    std::lock_guard<std::mutex> lock(gMutex);
    if (!m->unmapped) {
      m->unmapped = true;
      unmap = true;
      auto it = gLive.find(m->addr);
      if (it != gLive.end() && it->second == m) gLive.erase(it);
    }
  }
  if (unmap) munmap(m->addr, m->bytes);
  delete m;
}

Napi::Value ThrowErrno(Napi::Env env, const nearwire::SysResult& r) {
  const char* name = "EUNKNOWN";
  switch (r.err) {
    case ENOSPC: name = "ENOSPC"; break;
    case ENOMEM: name = "ENOMEM"; break;
    case EMFILE: name = "EMFILE"; break;
    case ENFILE: name = "ENFILE"; break;
    case EFBIG: name = "EFBIG"; break;
    case EACCES: name = "EACCES"; break;
    case EPERM: name = "EPERM"; break;
    case EROFS: name = "EROFS"; break;
    case ENOENT: name = "ENOENT"; break;
    case ENOTDIR: name = "ENOTDIR"; break;
    case EINVAL: name = "EINVAL"; break;
    case ESRCH: name = "ESRCH"; break;
    case EFAULT: name = "EFAULT"; break;
    case EBADF: name = "EBADF"; break;
    default: break;
  }
  std::string msg = std::string(r.syscall) + ": " + std::strerror(r.err);
  Napi::Error e = Napi::Error::New(env, msg);
  e.Set("code", Napi::String::New(env, name));
  e.Set("errno", Napi::Number::New(env, -r.err));
  e.Set("syscall", Napi::String::New(env, r.syscall));
  e.ThrowAsJavaScriptException();
  return env.Undefined();
}

Napi::Value ThrowType(Napi::Env env, const char* msg) {
  Napi::TypeError::New(env, msg).ThrowAsJavaScriptException();
  return env.Undefined();
}

Napi::Value Wrap(Napi::Env env, void* addr, size_t bytes) {
  auto* m = new Mapping{addr, bytes, false};
  {
    std::lock_guard<std::mutex> lock(gMutex);
    gLive[addr] = m;
  }
  return Napi::ArrayBuffer::New(env, addr, bytes, Finalize, m);
}

bool ReadSize(const Napi::Value& v, size_t* out) {
  if (!v.IsNumber()) return false;
  double d = v.As<Napi::Number>().DoubleValue();
  if (!(d > 0) || d > 9007199254740991.0 || d != static_cast<double>(static_cast<int64_t>(d))) return false;
  *out = static_cast<size_t>(d);
  return true;
}

// createSegment(bytes: number, dir: string) -> { fd: number, buffer: ArrayBuffer }
// The memfd is sealed and mapped, but no page is committed but those JS touches (the header):
// commitSegment does that once the peer has accepted the segment.
Napi::Value CreateSegment(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  size_t bytes;
  if (info.Length() < 2 || !ReadSize(info[0], &bytes) || !info[1].IsString()) {
    return ThrowType(env, "createSegment(bytes: positive integer, dir: string)");
  }
  int fd = -1;
  auto r = nearwire::CreateSegmentFd(bytes, info[1].As<Napi::String>().Utf8Value(), &fd);
  if (r.err != 0) return ThrowErrno(env, r);
  void* addr = nullptr;
  r = nearwire::MapSegment(fd, bytes, false, &addr);
  if (r.err != 0) {
    close(fd);
    return ThrowErrno(env, r);
  }
  Napi::Object out = Napi::Object::New(env);
  out.Set("fd", Napi::Number::New(env, fd));
  out.Set("buffer", Wrap(env, addr, bytes));
  return out;
}

// openSegment(path: string, requireSeals: boolean) -> ArrayBuffer over the whole file; the fd
// is closed at once.
Napi::Value OpenSegment(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !info[0].IsString() || !info[1].IsBoolean()) {
    return ThrowType(env, "openSegment(path: string, requireSeals: boolean)");
  }
  int fd = -1;
  size_t bytes = 0;
  auto r = nearwire::OpenSegmentFd(info[0].As<Napi::String>().Utf8Value(),
                                   info[1].As<Napi::Boolean>().Value(), &fd, &bytes);
  if (r.err != 0) return ThrowErrno(env, r);
  if (bytes < nearwire::kHeaderBytes) {
    close(fd);
    return ThrowErrno(env, {EINVAL, "fstat"});
  }
  void* addr = nullptr;
  r = nearwire::MapSegment(fd, bytes, true, &addr);
  close(fd);
  if (r.err != 0) return ThrowErrno(env, r);
  return Wrap(env, addr, bytes);
}

// commitSegment(fd: number, buffer: ArrayBuffer): reserves every page of the segment behind `fd`
// (posix_fallocate) and populates this process's mapping `buffer` of it.
Napi::Value CommitSegment(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !info[0].IsNumber() || !info[1].IsArrayBuffer()) {
    return ThrowType(env, "commitSegment(fd: number, buffer: ArrayBuffer)");
  }
  int fd = info[0].As<Napi::Number>().Int32Value();
  Napi::ArrayBuffer ab = info[1].As<Napi::ArrayBuffer>();
  void* addr = ab.IsDetached() ? nullptr : ab.Data();
  size_t bytes = 0;
  {
    std::lock_guard<std::mutex> lock(gMutex);
    auto it = gLive.find(addr);
    if (addr == nullptr || it == gLive.end() || it->second->unmapped) {
      return ThrowType(env, "commitSegment: not a live segment buffer");
    }
    bytes = it->second->bytes;
  }
  auto r = nearwire::ReserveSegment(fd, bytes);
  if (r.err == 0) r = nearwire::PopulateMapping(addr, bytes);
  if (r.err != 0) return ThrowErrno(env, r);
  return env.Undefined();
}

// closeFd(fd: number)
Napi::Value CloseFd(const Napi::CallbackInfo& info) {
  if (info.Length() < 1 || !info[0].IsNumber()) return ThrowType(info.Env(), "closeFd(fd: number)");
  close(info[0].As<Napi::Number>().Int32Value());
  return info.Env().Undefined();
}

// unmap(buffer: ArrayBuffer): detaches the buffer (views become empty), then munmaps.
Napi::Value Unmap(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsArrayBuffer()) return ThrowType(env, "unmap(buffer: ArrayBuffer)");
  Napi::ArrayBuffer ab = info[0].As<Napi::ArrayBuffer>();
  if (ab.IsDetached()) return env.Undefined();
  void* addr = ab.Data();
  size_t bytes = 0;
  {
    std::lock_guard<std::mutex> lock(gMutex);
    auto it = gLive.find(addr);
    if (it == gLive.end() || it->second->unmapped) return ThrowType(env, "unmap: not a segment buffer");
    // Marked here, freed by the finalizer (which may run during Detach, so copy what we need).
    it->second->unmapped = true;
    bytes = it->second->bytes;
    gLive.erase(it);
  }
  ab.Detach();
  munmap(addr, bytes);
  return env.Undefined();
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("createSegment", Napi::Function::New(env, CreateSegment));
  exports.Set("openSegment", Napi::Function::New(env, OpenSegment));
  exports.Set("commitSegment", Napi::Function::New(env, CommitSegment));
  exports.Set("closeFd", Napi::Function::New(env, CloseFd));
  exports.Set("unmap", Napi::Function::New(env, Unmap));
  exports.Set("layoutVersion", Napi::Number::New(env, nearwire::kLayoutVersion));
  exports.Set("headerBytes", Napi::Number::New(env, static_cast<double>(nearwire::kHeaderBytes)));
  return exports;
}

}  // namespace

NODE_API_MODULE(nearwire_shm, Init)
