//===- ShapeFolding.h - Shapes a GraphDef computes, folded ------*- C++ -*-===//
//
// TensorFlow's Python functions compute some of the shapes they reshape to
// from the shapes of tensors, with ops of the graph (Shape, Slice, ConcatV2,
// ...); a dtf.reshape takes its shape as its type. The importer folds those
// shape ops over the types of the values it has translated instead of
// translating them.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

namespace dtf::translate::graphdef {

class ImportContext;

/// The integers that input `input` of node `index` holds, where it is
/// computed from shapes (Shape, Rank, Slice, ConcatV2, Pack, Sub, Add of
/// constants), as the reshapes of TensorFlow's own Python functions compute
/// them; kDynamic where a dimension is not known.
mlir::FailureOr<llvm::SmallVector<int64_t>> foldShape(ImportContext &import,
                                                      int index, int input);

/// The integers that StridedSlice node `index` takes from a shape that
/// foldShape computes (`tf.shape(x)[i]`, or a range of one axis with stride
/// 1); kDynamic where a dimension is not known.
mlir::FailureOr<llvm::SmallVector<int64_t>>
foldStridedSlice(ImportContext &import, int index);

} // namespace dtf::translate::graphdef
