// SPDX-License-Identifier: Apache-2.0
#pragma once

// Clang's thread-safety annotations, as LevelDB and Abseil spell them. Clang checks them with
// -Wthread-safety (on for every clang build of our targets, see railyard_warnings()); other
// compilers see nothing. Use them instead of comments for lock contracts:
//
//   base::Mutex mu_;
//   int hits_ RAILYARD_GUARDED_BY(mu_) = 0;  // read or written only with mu_ held
//   void Bump() RAILYARD_REQUIRES(mu_);      // the caller holds mu_
//   void Refresh() RAILYARD_EXCLUDES(mu_);   // takes mu_ itself: the caller must not hold it
//
// The RAILYARD_ prefix keeps them out of a program's own names: installed headers use them, and a
// service owner may build with -DRELEASE=1 or their own GUARDED_BY. Each is defined only if
// nothing defined it before, since storage/ keeps an identical copy to stay standalone.
// https://clang.llvm.org/docs/ThreadSafetyAnalysis.html

#if defined(__clang__)
#define RAILYARD_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define RAILYARD_THREAD_ANNOTATION(x)
#endif

// A class that is a lock (a "capability"); `x` names its kind in warnings, e.g. "mutex".
#ifndef RAILYARD_CAPABILITY
#define RAILYARD_CAPABILITY(x) RAILYARD_THREAD_ANNOTATION(capability(x))
#endif

// An RAII class that holds a capability for its lifetime.
#ifndef RAILYARD_SCOPED_CAPABILITY
#define RAILYARD_SCOPED_CAPABILITY RAILYARD_THREAD_ANNOTATION(scoped_lockable)
#endif

// A member that may be read or written only with the capability held.
#ifndef RAILYARD_GUARDED_BY
#define RAILYARD_GUARDED_BY(x) RAILYARD_THREAD_ANNOTATION(guarded_by(x))
#endif

// A pointer member whose pointee may be read or written only with the capability held.
#ifndef RAILYARD_PT_GUARDED_BY
#define RAILYARD_PT_GUARDED_BY(x) RAILYARD_THREAD_ANNOTATION(pt_guarded_by(x))
#endif

// Lock order: this capability is taken before (after) the listed ones, never the other way.
#ifndef RAILYARD_ACQUIRED_BEFORE
#define RAILYARD_ACQUIRED_BEFORE(...) RAILYARD_THREAD_ANNOTATION(acquired_before(__VA_ARGS__))
#endif
#ifndef RAILYARD_ACQUIRED_AFTER
#define RAILYARD_ACQUIRED_AFTER(...) RAILYARD_THREAD_ANNOTATION(acquired_after(__VA_ARGS__))
#endif

// The caller must hold the capabilities (exclusively, or at least shared) on entry and on exit.
#ifndef RAILYARD_REQUIRES
#define RAILYARD_REQUIRES(...) RAILYARD_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#endif
#ifndef RAILYARD_REQUIRES_SHARED
#define RAILYARD_REQUIRES_SHARED(...) \
  RAILYARD_THREAD_ANNOTATION(requires_shared_capability(__VA_ARGS__))
#endif

// The function takes (releases) the capabilities and returns with them held (not held). With no
// argument on a capability's own methods, the capability is the object itself.
#ifndef RAILYARD_ACQUIRE
#define RAILYARD_ACQUIRE(...) RAILYARD_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#endif
#ifndef RAILYARD_ACQUIRE_SHARED
#define RAILYARD_ACQUIRE_SHARED(...) \
  RAILYARD_THREAD_ANNOTATION(acquire_shared_capability(__VA_ARGS__))
#endif
#ifndef RAILYARD_RELEASE
#define RAILYARD_RELEASE(...) RAILYARD_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#endif
#ifndef RAILYARD_RELEASE_SHARED
#define RAILYARD_RELEASE_SHARED(...) \
  RAILYARD_THREAD_ANNOTATION(release_shared_capability(__VA_ARGS__))
#endif

// Takes the capability when the function returns `x` (true or false) and not otherwise.
#ifndef RAILYARD_TRY_ACQUIRE
#define RAILYARD_TRY_ACQUIRE(...) RAILYARD_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))
#endif

// The caller must not hold the capabilities (the function takes them itself).
#ifndef RAILYARD_EXCLUDES
#define RAILYARD_EXCLUDES(...) RAILYARD_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#endif

// Checks at run time that the capability is held; the analysis assumes it is from here on.
#ifndef RAILYARD_ASSERT_CAPABILITY
#define RAILYARD_ASSERT_CAPABILITY(x) RAILYARD_THREAD_ANNOTATION(assert_capability(x))
#endif

// The function returns a reference to the capability `x`.
#ifndef RAILYARD_RETURN_CAPABILITY
#define RAILYARD_RETURN_CAPABILITY(x) RAILYARD_THREAD_ANNOTATION(lock_returned(x))
#endif

// Turns the analysis off for one function: for locking the analysis cannot follow. Say why.
#ifndef RAILYARD_NO_THREAD_SAFETY_ANALYSIS
#define RAILYARD_NO_THREAD_SAFETY_ANALYSIS RAILYARD_THREAD_ANNOTATION(no_thread_safety_analysis)
#endif
