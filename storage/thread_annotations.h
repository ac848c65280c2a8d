// SPDX-License-Identifier: Apache-2.0
#pragma once

// Clang's thread-safety annotations, as LevelDB (port/thread_annotations.h) and Abseil spell them.
// Clang checks them with -Wthread-safety; other compilers see nothing. storage/ keeps its own copy
// to stay standalone. Lock contracts are written with these, not in comments:
//
//   Mutex mu_;
//   int hits_ GUARDED_BY(mu_) = 0;  // Read or written only with mu_ held.
//   void Bump() REQUIRES(mu_);      // The caller holds mu_.
//   void Refresh() EXCLUDES(mu_);   // Takes mu_ itself: the caller must not hold it.
//
// Each macro is defined only if nothing defined it before, so a file may include this and another
// library's header of the same names.
// https://clang.llvm.org/docs/ThreadSafetyAnalysis.html

#if defined(__clang__)
#define RAILYARD_STORAGE_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define RAILYARD_STORAGE_THREAD_ANNOTATION(x)
#endif

// A class that is a lock (a "capability"); `x` names its kind in warnings, e.g. "mutex".
#ifndef CAPABILITY
#define CAPABILITY(x) RAILYARD_STORAGE_THREAD_ANNOTATION(capability(x))
#endif

// An RAII class that holds a capability for its lifetime.
#ifndef SCOPED_CAPABILITY
#define SCOPED_CAPABILITY RAILYARD_STORAGE_THREAD_ANNOTATION(scoped_lockable)
#endif

// A member that may be read or written only with the capability held (shared for reads).
#ifndef GUARDED_BY
#define GUARDED_BY(x) RAILYARD_STORAGE_THREAD_ANNOTATION(guarded_by(x))
#endif

// A pointer member whose pointee may be used only with the capability held.
#ifndef PT_GUARDED_BY
#define PT_GUARDED_BY(x) RAILYARD_STORAGE_THREAD_ANNOTATION(pt_guarded_by(x))
#endif

// Lock order: this capability is taken before (after) the listed ones, never the other way.
#ifndef ACQUIRED_BEFORE
#define ACQUIRED_BEFORE(...) RAILYARD_STORAGE_THREAD_ANNOTATION(acquired_before(__VA_ARGS__))
#endif
#ifndef ACQUIRED_AFTER
#define ACQUIRED_AFTER(...) RAILYARD_STORAGE_THREAD_ANNOTATION(acquired_after(__VA_ARGS__))
#endif

// The caller must hold the capabilities (exclusively, or at least shared) on entry and on exit.
#ifndef REQUIRES
#define REQUIRES(...) RAILYARD_STORAGE_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#endif
#ifndef REQUIRES_SHARED
#define REQUIRES_SHARED(...) \
  RAILYARD_STORAGE_THREAD_ANNOTATION(requires_shared_capability(__VA_ARGS__))
#endif

// The function takes (releases) the capabilities. With no argument on a capability's own methods,
// or on a scoped lock's, the capability is the object itself (or the one the scoped lock holds).
#ifndef ACQUIRE
#define ACQUIRE(...) RAILYARD_STORAGE_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#endif
#ifndef ACQUIRE_SHARED
#define ACQUIRE_SHARED(...) \
  RAILYARD_STORAGE_THREAD_ANNOTATION(acquire_shared_capability(__VA_ARGS__))
#endif
#ifndef RELEASE
#define RELEASE(...) RAILYARD_STORAGE_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#endif
#ifndef RELEASE_SHARED
#define RELEASE_SHARED(...) \
  RAILYARD_STORAGE_THREAD_ANNOTATION(release_shared_capability(__VA_ARGS__))
#endif

// Takes the capability when the function returns `x` (true or false), and not otherwise.
#ifndef TRY_ACQUIRE
#define TRY_ACQUIRE(...) RAILYARD_STORAGE_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))
#endif

// The caller must not hold the capabilities (the function takes them itself).
#ifndef EXCLUDES
#define EXCLUDES(...) RAILYARD_STORAGE_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#endif

// Tells the analysis the capability is held here (checked at run time, or known otherwise).
#ifndef ASSERT_CAPABILITY
#define ASSERT_CAPABILITY(x) RAILYARD_STORAGE_THREAD_ANNOTATION(assert_capability(x))
#endif

// The function returns a reference to the capability `x`.
#ifndef RETURN_CAPABILITY
#define RETURN_CAPABILITY(x) RAILYARD_STORAGE_THREAD_ANNOTATION(lock_returned(x))
#endif

// Turns the analysis off for one function: say why beside it.
#ifndef NO_THREAD_SAFETY_ANALYSIS
#define NO_THREAD_SAFETY_ANALYSIS RAILYARD_STORAGE_THREAD_ANNOTATION(no_thread_safety_analysis)
#endif
