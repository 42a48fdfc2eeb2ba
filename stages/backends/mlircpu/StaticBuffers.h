//===- StaticBuffers.h - Plan a function's buffers once per instance -*- C++ -*-===//
//
// After bufferization every intermediate of a compiled function is a
// `memref.alloc`, lowered to `malloc` on every call and never freed. A
// fresh, untouched allocation costs page faults inside the first write (the
// fill's memset), which measured 17% of a model's time. Buffers that a call
// allocates exactly once (in the function's entry block) and whose shape is
// static become module globals instead: planned once per loaded instance,
// zero allocations and zero page faults in the steady state.
//
// The price: a loaded function is not reentrant, and a result it returns is
// overwritten by the next call (its descriptor carries MLIR's global
// sentinel as the allocated pointer, so callers do not free it). Buffers
// that a loop body allocates and frees go to the stack (scopeLoopBuffers).
//
//===----------------------------------------------------------------------===//
#ifndef RETUNE_CPU_STATICBUFFERS_H
#define RETUNE_CPU_STATICBUFFERS_H

#include "mlir/IR/BuiltinOps.h"

namespace retune::cpu {

/// Gives every contraction or convolution whose init is a `linalg.fill`
/// used elsewhere too its own copy of the fill, as a dispatch owns its fill:
/// one fill shared by several ops (the same zero init for q, k and v) makes
/// bufferization fill one buffer and copy it for each, a read and a write
/// where a fill is a write. Returns how many fills it cloned.
unsigned privatizeSharedFills(mlir::ModuleOp module);

/// Replaces every static-shaped `memref.alloc` in a function's entry block
/// by a private, uninitialized global of `module`; returns how many.
unsigned planStaticBuffers(mlir::ModuleOp module);

/// Moves the scratch buffers of loop bodies to the stack: a static-shaped
/// `memref.alloc` outside the entry block that the same block frees (a
/// packed panel, allocated and freed per outer tile) becomes a
/// `memref.alloca` between a stack save and a restore where the dealloc
/// was, so each iteration reuses the same stack bytes and every thread of a
/// parallel loop has its own. malloc/free per tile cost page faults where
/// the allocator returns the memory to the system between calls (374 per
/// call of a 2-thread transformer block). `memref.alloca_scope` would say
/// the same, but canonicalization inlines it into scf loops (which claim to
/// be allocation scopes yet restore no stack when lowered), and scf-to-cf
/// leaves it with several blocks, which it may not have. Run it after the
/// last canonicalization. Returns how many it moved.
unsigned scopeLoopBuffers(mlir::ModuleOp module);

} // namespace retune::cpu

#endif // RETUNE_CPU_STATICBUFFERS_H
