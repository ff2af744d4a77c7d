// Access to file mappings that another process may truncate under us. Touching a page of a
// MAP_SHARED mapping beyond its file's end raises SIGBUS, and any user of the device root can
// truncate the statistics files at any moment: no check of the size before an access can close
// that window. So every access to a mapped statistics file runs inside guarded(), which catches
// such a SIGBUS on the calling thread and returns false instead; the caller then looks at the
// files again (and rebuilds what was cut).
//
// The SIGBUS handler is installed once, at the first guarded access, and hands every SIGBUS that
// is not raised inside a guarded access on to the handler it replaced (the default one ends the
// process as before). An application that installs its own SIGBUS handler afterwards replaces it:
// a truncation under a running process is then that handler's to deal with.
#pragma once

namespace nnemu::synap {

// Runs fn(arg); false when it raised SIGBUS (it is then abandoned where it stood, so it must hold
// nothing that needs destroying: plain loads, stores and atomics on the mappings only).
bool guardedAccess(void (*fn)(void*), void* arg);

template <typename Access>
bool guarded(Access&& access) {
    return guardedAccess([](void* context) { (*static_cast<Access*>(context))(); }, &access);
}

}  // namespace nnemu::synap
