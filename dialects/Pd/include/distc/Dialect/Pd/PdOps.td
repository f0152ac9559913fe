//===- PdOps.td - PaddlePaddle operators -------------------*- tablegen -*-===//
//
// Structural ops first, then one op per Paddle operator. Each definition is
// the op's one declaration: distc-tblgen generates the Paddle op catalog
// (operand i = input slot i, result i = output slot i, inherent attributes
// = Paddle attributes with their AttrType and default), the shape inference
// and lowering dispatch, the gradient rules and the Paddle 3 PIR forms
// (how `pd_op.<name>` maps onto the op) from it (the fields are
// documented on Pd_Op in PdDialect.td; docs/adding-an-op.md walks through
// one op).
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_DIALECT_PD_PDOPS_TD
#define DISTC_DIALECT_PD_PDOPS_TD

include "distc/Dialect/Pd/PdDialect.td"
include "distc/Dialect/Pd/PdAttrs.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Paddle attributes
//===----------------------------------------------------------------------===//

// An attribute of Paddle's AttrType `pdKind` (OpCatalog.h's AttrKind) whose
// default is `pdDefault` in the catalog's literal syntax ("0", "1e-05",
// "true", "abc", "[1,2]"); the ODS default is the same value in C++.
class PdAttr<Attr attr, string cppDefault, string kind, string d>
    : DefaultValuedAttr<attr, cppDefault> {
  string pdKind = kind;
  string pdDefault = d;
}
// "[1,2]" as the C++ initializer of an ArrayRef<T>.
class PdListDefault<string elementType, string d> {
  string value = !if(!eq(d, "[]"), "{}",
      "::llvm::ArrayRef<" # elementType # ">{" # !subst("]", "}", !subst("[", "", d)));
}
class PdInt<string d> : PdAttr<I32Attr, d, "Int", d>;
class PdLong<string d> : PdAttr<I64Attr, d, "Long", d>;
class PdFloat<string d> : PdAttr<F32Attr, d, "Float", d>;
class PdBool<string d> : PdAttr<BoolAttr, d, "Boolean", d>;
class PdStr<string d> : PdAttr<StrAttr, "\"" # d # "\"", "String", d>;
class PdInts<string d>
    : PdAttr<DenseI32ArrayAttr, PdListDefault<"int32_t", d>.value, "Ints", d>;
class PdLongs<string d>
    : PdAttr<DenseI64ArrayAttr, PdListDefault<"int64_t", d>.value, "Longs", d>;
class PdStrings<string d> : PdAttr<StrArrayAttr, !if(!eq(d, "[]"), "{}", d), "Strings", d>;

defvar PdTensor = AnyRankedTensor;

//===----------------------------------------------------------------------===//
// Structural ops
//===----------------------------------------------------------------------===//

def Pd_ProgramOp : Pd_Op<"program", [Symbol, IsolatedFromAbove, NoTerminator,
                                     SingleBlock, NoRegionArguments,
                                     HasParent<"::mlir::ModuleOp">]> {
  let summary = "A Paddle program (ProgramDesc block 0) as one SSA block";
  let description = [{
    The module holds `@main` (the program run every step) and optionally
    `@startup` (run once to initialize persistable variables). The block has
    no arguments and no terminator: inputs come from `pd.feed` and
    `pd.read_var`, outputs leave through `pd.fetch` and `pd.write_var`.

    ```mlir
    pd.program @main {
      %x = pd.feed {col = 0 : i32} : tensor<?x784xf32>
      ...
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  // Checks every sharding in the program (and the module's variables) against
  // its mesh: one symbol lookup table per program, not per value.
  let hasRegionVerifier = 1;
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name)>];
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
  }];
}

def Pd_MeshOp : Pd_Op<"mesh", [Symbol, HasParent<"::mlir::ModuleOp">]> {
  let summary = "A process mesh: an n-D array of ranks with named axes";
  let description = [{
    Paddle's `ProcessMesh`: `shape` gives the size of each axis,
    `dim_names` their names (default `d0`, `d1`, ...), `process_ids` the
    ranks in row-major order (default 0 .. size-1). Shardings
    (`#pd.sharding`) refer to it by symbol.

    ```mlir
    pd.mesh @mesh shape [2, 2] dim_names ["dp", "mp"]
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, DenseI64ArrayAttr:$shape,
                       OptionalAttr<StrArrayAttr>:$dim_names,
                       OptionalAttr<DenseI64ArrayAttr>:$process_ids);
  let assemblyFormat = [{
    $sym_name `shape` $shape (`dim_names` $dim_names^)? (`process_ids` $process_ids^)? attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The mesh as the sharding component's ProcessMesh (defaults filled).
    ::distc::sharding::ProcessMesh getProcessMesh();
  }];
}

def Pd_VarOp : Pd_Op<"var", [Symbol, HasParent<"::mlir::ModuleOp">]> {
  let summary = "Declares a persistable variable (parameter or state)";
  let description = [{
    A module-level persistable variable: parameters, optimizer moments,
    learning rates, counters. Its value lives across steps and across the
    main and startup programs; ops access it only through `pd.read_var` and
    `pd.write_var`. The shape must be static.

    ```mlir
    pd.var @fc_w persistable is_parameter : tensor<784x10xf32>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<AnyRankedTensor>:$type,
                       UnitAttr:$persistable,
                       UnitAttr:$is_parameter,
                       UnitAttr:$stop_gradient);
  let assemblyFormat = [{
    $sym_name (`persistable` $persistable^)? (`is_parameter` $is_parameter^)?
    (`stop_gradient` $stop_gradient^)? attr-dict `:` $type
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::RankedTensorType getTensorType() {
      return ::llvm::cast<::mlir::RankedTensorType>(getType());
    }
  }];
}

def Pd_ReadVarOp : Pd_Op<"read_var",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Reads the current value of a persistable variable";
  let arguments = (ins FlatSymbolRefAttr:$var);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$var attr-dict `:` type($result)";
  let lowering = [{ lowerReadVar(op) }];
}

def Pd_WriteVarOp : Pd_Op<"write_var",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Writes a new value of a persistable variable";
  let description = [{
    Paddle's in-place updates (`sgd` writing `ParamOut` into `Param`, a
    startup initializer writing a parameter) become explicit writes, so
    every pass sees when a variable changes.
  }];
  let arguments = (ins FlatSymbolRefAttr:$var, AnyRankedTensor:$value);
  let assemblyFormat = "$var `,` $value attr-dict `:` type($value)";
  let lowering = [{ lowerWriteVar(op) }];
}

def Pd_FeedOp : Pd_Op<"feed"> {
  let summary = "Column `col` of the feed list (a program input)";
  let description = [{
    Paddle's `feed` op with its implicit feed-list variable: the result is
    the fed tensor. Dynamic dimensions (Paddle's -1) are allowed.
  }];
  let arguments = (ins PdInt<"0">:$col);
  let results = (outs AnyRankedTensor:$Out);
  let assemblyFormat = "attr-dict `:` type($Out)";
  let inCatalog = 1;
  let paddleInputs = ["X"];
  let paddleOutputs = ["Out"];
  let inferRule = "inferFeedFetch";
  let lowering = [{ lowerFeed(op) }];
  let spmdRule = "feed";
  let hasPirForm = 0; // pd_op.data and pd_op.feed, read by the PIR importer itself
}

def Pd_FetchOp : Pd_Op<"fetch"> {
  let summary = "Stores a value into column `col` of the fetch list";
  let arguments = (ins AnyRankedTensor:$X, PdInt<"0">:$col);
  let assemblyFormat = "$X attr-dict `:` type($X)";
  let inCatalog = 1;
  let paddleInputs = ["X"];
  let paddleOutputs = ["Out"];
  let inferRule = "inferFeedFetch";
  let lowering = [{ lowerFetch(op) }];
  let spmdRule = "fetch";
  let hasPirForm = 0; // pd_op.fetch, read by the PIR importer itself
}

//===----------------------------------------------------------------------===//
// Catalog ops
//===----------------------------------------------------------------------===//

// An op of the catalog. Its verifier runs Paddle's shape and dtype inference
// (ShapeInference.h) on the operands and checks the result types against it.
class Pd_CatalogOp<string mnemonic, list<Trait> traits = []>
    : Pd_Op<mnemonic, traits> {
  let inCatalog = 1;
  let hasVerifier = 1;
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() {
      return ::distc::pd::detail::verifyCatalogOp(*this);
    }
  }];
}


// --- Creation and copies ---------------------------------------------------

def Pd_FillConstantOp : Pd_CatalogOp<"fill_constant", [Pure]> {
  let summary = "Tensor of `shape` and `dtype` filled with `value`";
  let arguments = (ins PdLongs<"[]">:$shape, PdFloat<"0">:$value,
                       PdStr<"">:$str_value, PdInt<"5">:$dtype,
                       PdBool<"false">:$force_cpu);
  let results = (outs PdTensor:$Out);
  let assemblyFormat = "attr-dict `:` functional-type(operands, results)";
  let foldedInputs = ["ShapeTensor=shape", "ShapeTensorList=shape", "ValueTensor=value"];
  let pirName = "full";
  let pirOperands = [];
  let isInitializer = 1; // also initializes parameters in startup programs
  let inferRule = "inferCreation";
  let lowering = [{ lowerFillConstant(op) }];
  let spmdRule = "full";
}

def Pd_AssignOp : Pd_CatalogOp<"assign", [Pure]> {
  let summary = "Copy of X";
  let arguments = (ins PdTensor:$X);
  let results = (outs PdTensor:$Out);
  let inferRule = "inferSameAsX";
  let lowering = [{ lowerAssign(op) }];
  let gradRule = "assignGrad";
  let spmdRule = "assign";
}

def Pd_CastOp : Pd_CatalogOp<"cast", [Pure]> {
  let summary = "X converted from `in_dtype` to `out_dtype`";
  let arguments = (ins PdTensor:$X, PdInt<"5">:$in_dtype, PdInt<"5">:$out_dtype);
  let results = (outs PdTensor:$Out);
  let pirAttrs = ["dtype:out_dtype"];
  let pirDtypeAttrs = ["in_dtype:X"];
  let inferRule = "inferCast";
  let lowering = [{ lowerCast(op) }];
  let gradRule = "castGrad";
  let spmdRule = "cast";
}

def Pd_ScaleOp : Pd_CatalogOp<"scale", [Pure]> {
  let summary = "scale * X + bias (or scale * (X + bias))";
  let arguments = (ins PdTensor:$X, PdFloat<"1">:$scale, PdFloat<"0">:$bias,
                       PdBool<"true">:$bias_after_scale);
  let results = (outs PdTensor:$Out);
  let foldedInputs = ["ScaleTensor=scale"];
  let pirOperands = ["X", "attr:scale"];
  let inferRule = "inferSameAsX";
  let lowering = [{ lowerScale(op) }];
  let spmdRule = "scale";
  let gradRule = "scaleGrad";
  let loopOp = "scale";
  let loopImmediates = ["scale", "bias", "bias_after_scale"];
}

// --- Linear algebra ---------------------------------------------------------

def Pd_MulOp : Pd_CatalogOp<"mul", [Pure]> {
  let summary = "Matrix product of X and Y flattened to 2-D";
  let arguments = (ins PdTensor:$X, PdTensor:$Y, PdInt<"1">:$x_num_col_dims,
                       PdInt<"1">:$y_num_col_dims);
  let results = (outs PdTensor:$Out);
  let hasPirForm = 0; // PIR programs hold matmul instead
  let inferRule = "inferMul";
  let lowering = [{ lowerMul(op) }];
  let gradOp = "mul_grad";
  let spmdRule = "mul";
}

def Pd_MatmulV2Op : Pd_CatalogOp<"matmul_v2", [Pure]> {
  let summary = "NumPy-style batched matrix product";
  let arguments = (ins PdTensor:$X, PdTensor:$Y, PdBool<"false">:$trans_x,
                       PdBool<"false">:$trans_y);
  let results = (outs PdTensor:$Out);
  let pirName = "matmul";
  let pirAttrs = ["transpose_x:trans_x", "transpose_y:trans_y"];
  let inferRule = "inferMatmulV2";
  let lowering = [{ lowerMatmul(op) }];
  let gradOp = "matmul_v2_grad";
  let spmdRule = "matmul";
}

// --- Element-wise arithmetic -----------------------------------------------

// `kernelOp` names the operation of the runtime's `binary` kernel.
class Pd_ElementwiseOp<string mnemonic, string what, string kernelOp, bit hasGrad = 1>
    : Pd_CatalogOp<mnemonic, [Pure]> {
  let summary = "Element-wise " # what # " with Paddle's `axis` broadcast";
  let arguments = (ins PdTensor:$X, PdTensor:$Y, PdInt<"-1">:$axis);
  let results = (outs PdTensor:$Out);
  let inferRule = "inferElementwise";
  let lowering = "lowerElementwise(op, \"" # kernelOp # "\")";
  let gradOp = !if(hasGrad, mnemonic # "_grad", "");
  let loopOp = kernelOp;
}
// The SPMD rules read the fluid `axis` (ElementwiseRules.cpp).
def Pd_ElementwiseAddOp : Pd_ElementwiseOp<"elementwise_add", "X + Y", "add"> {
  let pirName = "add";
  let spmdRule = "add";
}
def Pd_ElementwiseSubOp : Pd_ElementwiseOp<"elementwise_sub", "X - Y", "sub"> {
  let pirName = "subtract";
  let spmdRule = "subtract";
}
def Pd_ElementwiseMulOp : Pd_ElementwiseOp<"elementwise_mul", "X * Y", "mul"> {
  let pirName = "multiply";
  let spmdRule = "multiply";
}
def Pd_ElementwiseDivOp : Pd_ElementwiseOp<"elementwise_div", "X / Y", "div"> {
  let pirName = "divide";
  let spmdRule = "divide";
}

// --- Activations -------------------------------------------------------------

// An op of the runtime's `unary` kernel, whose operation is the mnemonic;
// `hasGrad`: its gradient is `<mnemonic>_grad`.
class Pd_UnaryOp<string mnemonic, string what, bit hasGrad = 1>
    : Pd_CatalogOp<mnemonic, [Pure]> {
  let summary = what;
  let arguments = (ins PdTensor:$X);
  let results = (outs PdTensor:$Out);
  let inferRule = "inferSameAsX";
  let lowering = "lowerUnary(op, \"" # mnemonic # "\")";
  let gradOp = !if(hasGrad, mnemonic # "_grad", "");
  let spmdRule = mnemonic;
  let loopOp = mnemonic;
}
def Pd_ReluOp : Pd_UnaryOp<"relu", "max(X, 0)">;
def Pd_SigmoidOp : Pd_UnaryOp<"sigmoid", "1 / (1 + exp(-X))">;
def Pd_TanhOp : Pd_UnaryOp<"tanh", "tanh(X)">;
def Pd_SquareOp : Pd_UnaryOp<"square", "X * X">;

def Pd_GeluOp : Pd_CatalogOp<"gelu", [Pure]> {
  let summary = "GELU activation (erf form, or tanh form when `approximate`)";
  let arguments = (ins PdTensor:$X, PdBool<"false">:$approximate);
  let results = (outs PdTensor:$Out);
  let inferRule = "inferSameAsX";
  let lowering = [{
    lowerUnary(op, pd::OpAttributes(op).getBool("approximate") ? "gelu_tanh" : "gelu")
  }];
  let gradOp = "gelu_grad";
  let spmdRule = "gelu";
  let loopOp = "gelu";
  let loopVariant = "approximate:gelu_tanh";
}

def Pd_SoftmaxOp : Pd_CatalogOp<"softmax", [Pure]> {
  let summary = "Softmax along `axis`";
  let arguments = (ins PdTensor:$X, PdInt<"-1">:$axis);
  let results = (outs PdTensor:$Out);
  let inferRule = "inferSoftmax";
  let lowering = [{ lowerSoftmax(op) }];
  let gradOp = "softmax_grad";
  let spmdRule = "softmax";
}

def Pd_ClipOp : Pd_CatalogOp<"clip", [Pure]> {
  let summary = "X limited to [min, max]";
  let arguments = (ins PdTensor:$X, F32Attr:$min, F32Attr:$max);
  let results = (outs PdTensor:$Out);
  let foldedInputs = ["Min=min", "Max=max"];
  let pirOperands = ["X", "attr:min", "attr:max"];
  let inferRule = "inferSameAsX";
  let lowering = [{ lowerElementwiseKernel(op, "clip", {"min", "max"}) }];
  let gradOp = "clip_grad";
  let spmdRule = "clip";
  let loopOp = "clip";
  let loopImmediates = ["min", "max"];
}

// --- Reductions --------------------------------------------------------------

class Pd_ReduceOp<string mnemonic, string what, string kernelOp>
    : Pd_CatalogOp<mnemonic, [Pure]> {
  let summary = what # " of X over `dim` (all dims with `reduce_all`)";
  let arguments = (ins PdTensor:$X, PdInts<"[0]">:$dim,
                       PdBool<"false">:$keep_dim, PdBool<"false">:$reduce_all,
                       PdInt<"-1">:$in_dtype, PdInt<"-1">:$out_dtype);
  let results = (outs PdTensor:$Out);
  let pirAttrs = ["keepdim:keep_dim", "dtype:out_dtype"];
  let inferRule = "inferReduce";
  let lowering = "lowerReduce(op, \"" # kernelOp # "\")";
  let gradOp = mnemonic # "_grad";
  // Paddle's `sum`/`mean` rules; they also read `reduce_all`.
  let spmdRule = kernelOp;
  let spmdAttrs = ["axis:dim", "keepdim:keep_dim"];
}
def Pd_ReduceSumOp : Pd_ReduceOp<"reduce_sum", "Sum", "sum"> {
  let pirName = "sum";
  let pirOperands = ["X", "attr:dim"]; // pd_op.sum(x, axis)
}
def Pd_ReduceMeanOp : Pd_ReduceOp<"reduce_mean", "Mean", "mean"> {
  // pd_op.mean(x, axis) {keepdim}: axis is an IntArray operand (op_compat.yaml's
  // int_array with support_tensor), as sum's; empty: all dims.
  let pirName = "mean";
  let pirOperands = ["X", "attr:dim"];
  let pirAttrs = ["keepdim:keep_dim"];
}

def Pd_MeanOp : Pd_UnaryOp<"mean", "Mean of all elements of X (a scalar)"> {
  let hasPirForm = 0; // PIR's pd_op.mean is reduce_mean
  let inferRule = "inferMean";
  let loopOp = ""; // a reduction
  let lowering = [{ lowerMean(op) }];
  let spmdRule = "mean_all";
}

// --- Shape manipulation -----------------------------------------------------

def Pd_Reshape2Op : Pd_CatalogOp<"reshape2", [Pure]> {
  let summary = "X with a new `shape` (0 copies a dim, one -1 is inferred)";
  let description = [{
    `XShape` is Paddle's shape carrier for the backward pass: `[0] ++ X.dims`.
  }];
  let arguments = (ins PdTensor:$X, PdInts<"[]">:$shape);
  let results = (outs PdTensor:$Out, PdTensor:$XShape);
  let optionalOutputs = ["XShape"];
  let foldedInputs = ["Shape=shape|-1", "ShapeTensor=shape|-1"];
  let pirName = "reshape";
  let pirOperands = ["X", "attr:shape"];
  let inferRule = "inferReshape2";
  let lowering = [{ lowerReshape(op) }];
  let gradOp = "reshape2_grad";
  let spmdRule = "reshape_with_xshape";
}

def Pd_Transpose2Op : Pd_CatalogOp<"transpose2", [Pure]> {
  let summary = "X with dimensions permuted by `axis`";
  let arguments = (ins PdTensor:$X, PdInts<"[]">:$axis);
  let results = (outs PdTensor:$Out, PdTensor:$XShape);
  let optionalOutputs = ["XShape"];
  let pirName = "transpose";
  let pirResults = ["Out"];
  let pirAttrs = ["perm:axis"];
  let inferRule = "inferTranspose2";
  let lowering = [{ lowerTranspose(op) }];
  let gradOp = "transpose2_grad";
  let spmdRule = "transpose_with_xshape";
  let spmdAttrs = ["perm:axis"];
}

def Pd_ConcatOp : Pd_CatalogOp<"concat", [Pure]> {
  let summary = "Concatenation of the X tensors along `axis`";
  let arguments = (ins Variadic<PdTensor>:$X, PdInt<"0">:$axis);
  let results = (outs PdTensor:$Out);
  let foldedInputs = ["AxisTensor=axis"];
  let pirOperands = ["X", "attr:axis"];
  let inferRule = "inferConcat";
  let lowering = [{ lowerConcat(op) }];
  let gradOp = "concat_grad";
  let spmdRule = "concat";
}

def Pd_SplitOp : Pd_CatalogOp<"split", [Pure]> {
  let summary = "X split along `axis` into `num` equal parts or `sections`";
  let arguments = (ins PdTensor:$X, PdInt<"0">:$axis, PdInt<"0">:$num,
                       PdInts<"[]">:$sections);
  let results = (outs Variadic<PdTensor>:$Out);
  let foldedInputs = ["AxisTensor=axis", "SectionsTensorList=sections"];
  let pirOperands = ["X", "attr:sections", "attr:axis"];
  let inferRule = "inferSplit";
  let lowering = [{ lowerSplit(op) }];
  let gradRule = "splitGrad";
  let spmdRule = "split";
}
// PIR's paddle.split(x, num): `num` equal parts, `num` an attribute.
def Pd_SplitWithNumPirForm : Pd_PirForm<"split_with_num", Pd_SplitOp> {
  let pirOperands = ["X", "attr:axis"];
}

def Pd_SliceOp : Pd_CatalogOp<"slice", [Pure]> {
  let summary = "Input[starts:ends] along `axes`, dropping `decrease_axis`";
  let arguments = (ins PdTensor:$Input, PdInts<"[]">:$axes, PdInts<"[]">:$starts,
                       PdInts<"[]">:$ends, PdInts<"[]">:$decrease_axis,
                       PdInts<"[]">:$infer_flags);
  let results = (outs PdTensor:$Out);
  let foldedInputs = ["StartsTensor=starts", "EndsTensor=ends", "StartsTensorList=starts",
                      "EndsTensorList=ends"];
  let pirOperands = ["Input", "attr:starts", "attr:ends"];
  let inferRule = "inferSlice";
  let lowering = [{ lowerSlice(op) }];
  let gradOp = "slice_grad";
  let spmdRule = "slice";
}

// --- Embeddings and normalization ---------------------------------------------

def Pd_LookupTableV2Op : Pd_CatalogOp<"lookup_table_v2", [Pure]> {
  let summary = "Rows of the embedding table W selected by Ids";
  let arguments = (ins PdTensor:$Ids, PdTensor:$W, PdLong<"-1">:$padding_idx,
                       PdBool<"false">:$is_sparse);
  let results = (outs PdTensor:$Out);
  let pirName = "embedding";
  let pirAttrs = ["sparse:is_sparse"];
  let inferRule = "inferLookupTableV2";
  let lowering = [{ lowerLookupTable(op) }];
  let gradOp = "lookup_table_v2_grad";
  let spmdRule = "lookup_table_v2";
  let spmdAttrs = ["sparse:is_sparse"];
}

def Pd_LayerNormOp : Pd_CatalogOp<"layer_norm",
                                  [Pure, AttrSizedOperandSegments]> {
  let summary = "Layer normalization over dims [begin_norm_axis, rank)";
  let arguments = (ins PdTensor:$X, Optional<PdTensor>:$Scale,
                       Optional<PdTensor>:$Bias, PdFloat<"1e-05">:$epsilon,
                       PdInt<"1">:$begin_norm_axis);
  let results = (outs PdTensor:$Y, PdTensor:$Mean, PdTensor:$Variance);
  let assemblyFormat = [{
    $X (`scale` $Scale^)? (`bias` $Bias^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let optionalOutputs = ["Mean", "Variance"];
  let inferRule = "inferLayerNorm";
  let lowering = [{ lowerLayerNorm(op) }];
  let gradOp = "layer_norm_grad";
  let spmdRule = "layer_norm";
}

def Pd_DropoutOp : Pd_CatalogOp<"dropout"> {
  let summary = "Random dropout of X; Mask records the kept elements";
  let arguments = (ins PdTensor:$X, PdFloat<"0.5">:$dropout_prob,
                       PdBool<"false">:$is_test, PdBool<"false">:$fix_seed,
                       PdInt<"0">:$seed,
                       PdStr<"downgrade_in_infer">:$dropout_implementation);
  let results = (outs PdTensor:$Out, PdTensor:$Mask);
  let optionalOutputs = ["Mask"];
  let unsupportedInputs = ["Seed"];
  let pirOperands = ["X", "-", "attr:dropout_prob"];
  let pirAttrs = ["p:dropout_prob", "mode:dropout_implementation"];
  let inferRule = "inferDropout";
  let lowering = [{ lowerDropout(op) }];
  let gradOp = "dropout_grad";
  let spmdRule = "dropout";
}

// --- Losses and metrics -------------------------------------------------------

def Pd_SoftmaxWithCrossEntropyOp
    : Pd_CatalogOp<"softmax_with_cross_entropy", [Pure]> {
  let summary = "Softmax of Logits and its cross entropy with Label";
  let arguments = (ins PdTensor:$Logits, PdTensor:$Label,
                       PdBool<"false">:$soft_label, PdInt<"-100">:$ignore_index,
                       PdBool<"true">:$numeric_stable_mode, PdInt<"-1">:$axis);
  let results = (outs PdTensor:$Softmax, PdTensor:$Loss);
  let pirName = "cross_entropy_with_softmax";
  let inferRule = "inferSoftmaxWithCrossEntropy";
  let lowering = [{ lowerSoftmaxCrossEntropy(op) }];
  let gradOp = "softmax_with_cross_entropy_grad";
  let spmdRule = "softmax_with_cross_entropy";
}

def Pd_TopKV2Op : Pd_CatalogOp<"top_k_v2", [Pure]> {
  let summary = "The k largest (or smallest) entries along `axis`";
  let arguments = (ins PdTensor:$X, PdInt<"1">:$k, PdInt<"-1">:$axis,
                       PdBool<"true">:$largest, PdBool<"true">:$sorted);
  let results = (outs PdTensor:$Out, PdTensor:$Indices);
  let foldedInputs = ["K=k"];
  let pirName = "topk";
  let pirOperands = ["X", "attr:k"];
  let inferRule = "inferTopKV2";
  let lowering = [{ lowerTopK(op) }];
  let spmdRule = "topk";
}

def Pd_AccuracyOp : Pd_CatalogOp<"accuracy", [Pure]> {
  let summary = "Top-k accuracy of Indices against Label";
  let arguments = (ins PdTensor:$Out, PdTensor:$Indices, PdTensor:$Label);
  let results = (outs PdTensor:$Accuracy, PdTensor:$Correct, PdTensor:$Total);
  let inferRule = "inferAccuracy";
  let lowering = [{ lowerAccuracy(op) }];
  let spmdRule = "accuracy";
}

// --- Accumulation and gradient-norm helpers -----------------------------------

def Pd_SumOp : Pd_CatalogOp<"sum", [Pure]> {
  let summary = "Element-wise sum of the X tensors (gradient accumulation)";
  let arguments = (ins Variadic<PdTensor>:$X);
  let results = (outs PdTensor:$Out);
  let pirName = "add_n";
  let inferRule = "inferSum";
  let lowering = [{ lowerSum(op) }];
  let gradRule = "sumGrad";
  let spmdRule = "add_n";
}
def Pd_SqrtOp : Pd_UnaryOp<"sqrt", "sqrt(X)">;
def Pd_SquaredL2NormOp
    : Pd_UnaryOp<"squared_l2_norm", "Sum of squares of X, shape [1]", /*hasGrad=*/0> {
  let inferRule = "inferSquaredL2Norm";
  let loopOp = ""; // a reduction
  let lowering = [{ lowerSquaredL2Norm(op) }];
}
def Pd_ElementwiseMaxOp : Pd_ElementwiseOp<"elementwise_max", "max(X, Y)", "max"> {
  let pirName = "maximum";
  let spmdRule = "maximum";
}

// --- Backward ops ----------------------------------------------------------------
//
// Paddle's `<op>_grad` ops: slot `S@GRAD` (named S_GRAD here) holds the
// gradient of the forward slot S. Every gradient output is a result; one that
// nothing uses is not computed by the lowering.

// Every gradient output is optional in Paddle: it leaves out the gradients
// nothing needs (of feeds, of stop_gradient variables).
class Pd_GradOp<string mnemonic, string what, list<Trait> traits = []>
    : Pd_CatalogOp<mnemonic, !listconcat([Pure], traits)> {
  let summary = "Gradient of " # what;
  let allOutputsOptional = 1;
  let inferRule = "inferGrad";
  let hasPirForm = 0; // inference programs hold no gradient ops
}

class Pd_BinaryGradOp<string mnemonic, string what> : Pd_GradOp<mnemonic, what> {
  let results = (outs PdTensor:$X_GRAD, PdTensor:$Y_GRAD);
}
def Pd_MulGradOp : Pd_BinaryGradOp<"mul_grad", "mul"> {
  let arguments = (ins PdTensor:$X, PdTensor:$Y, PdTensor:$Out_GRAD,
                       PdInt<"1">:$x_num_col_dims, PdInt<"1">:$y_num_col_dims);
  let lowering = [{ lowerMulGrad(op) }];
  let spmdRule = "mul_grad";
}
def Pd_MatmulV2GradOp : Pd_BinaryGradOp<"matmul_v2_grad", "matmul_v2"> {
  let arguments = (ins PdTensor:$X, PdTensor:$Y, PdTensor:$Out_GRAD,
                       PdBool<"false">:$trans_x, PdBool<"false">:$trans_y);
  let lowering = [{ lowerMatmulGrad(op) }];
  let spmdRule = "matmul_grad";
}
class Pd_ElementwiseGradOp<string mnemonic, string kernelOp>
    : Pd_BinaryGradOp<mnemonic, "an element-wise op"> {
  let arguments = (ins PdTensor:$X, PdTensor:$Y, PdTensor:$Out_GRAD, PdInt<"-1">:$axis);
  let lowering = "lowerElementwiseGrad(op, \"" # kernelOp # "\")";
}
def Pd_ElementwiseAddGradOp : Pd_ElementwiseGradOp<"elementwise_add_grad", "add"> {
  let spmdRule = "add_grad";
}
def Pd_ElementwiseSubGradOp : Pd_ElementwiseGradOp<"elementwise_sub_grad", "sub"> {
  let spmdRule = "subtract_grad";
}
def Pd_ElementwiseMulGradOp : Pd_ElementwiseGradOp<"elementwise_mul_grad", "mul"> {
  let spmdRule = "multiply_grad";
}
def Pd_ElementwiseDivGradOp : Pd_ElementwiseGradOp<"elementwise_div_grad", "div"> {
  let spmdRule = "divide_grad";
}
// Paddle's: X@GRAD = Out@GRAD·(X > Y), Y@GRAD = Out@GRAD·(X ≤ Y) (for min,
// X < Y and X ≥ Y): a tie sends the gradient to Y.
def Pd_ElementwiseMaxGradOp : Pd_ElementwiseGradOp<"elementwise_max_grad", "max"> {
  let spmdRule = "maximum_grad";
}

// The gradient of a `unary` kernel op, through the `unary_grad` kernel:
// `input` is the forward value its derivative is cheapest from (Out or X).
class Pd_ActivationGradOp<string mnemonic, string kernelOp, string input>
    : Pd_GradOp<mnemonic, "an activation"> {
  let arguments = !dag(ins, [PdTensor, PdTensor], [input, "Out_GRAD"]);
  let results = (outs PdTensor:$X_GRAD);
  let lowering = "lowerUnaryGrad(op, \"" # kernelOp # "\")";
  let spmdRule = kernelOp # "_grad";
  let loopOp = kernelOp # "_grad";
}
def Pd_ReluGradOp : Pd_ActivationGradOp<"relu_grad", "relu", "Out">;
def Pd_SigmoidGradOp : Pd_ActivationGradOp<"sigmoid_grad", "sigmoid", "Out">;
def Pd_TanhGradOp : Pd_ActivationGradOp<"tanh_grad", "tanh", "Out">;
def Pd_SqrtGradOp : Pd_ActivationGradOp<"sqrt_grad", "sqrt", "Out">;
def Pd_SquareGradOp : Pd_ActivationGradOp<"square_grad", "square", "X">;
def Pd_MeanGradOp : Pd_ActivationGradOp<"mean_grad", "mean", "X"> {
  let lowering = [{ lowerReduceGrad(op, /*isMean=*/true, /*all=*/true) }];
  let spmdRule = "mean_all_grad";
  let loopOp = ""; // a broadcast of a scalar
}
def Pd_GeluGradOp : Pd_GradOp<"gelu_grad", "gelu"> {
  let arguments = (ins PdTensor:$X, PdTensor:$Out_GRAD, PdBool<"false">:$approximate);
  let results = (outs PdTensor:$X_GRAD);
  let lowering = [{
    lowerUnaryGrad(op, pd::OpAttributes(op).getBool("approximate") ? "gelu_tanh" : "gelu")
  }];
  let spmdRule = "gelu_grad";
  let loopOp = "gelu_grad";
  let loopVariant = "approximate:gelu_tanh_grad";
}
def Pd_ClipGradOp : Pd_GradOp<"clip_grad", "clip"> {
  let arguments = (ins PdTensor:$X, PdTensor:$Out_GRAD, F32Attr:$min, F32Attr:$max);
  let results = (outs PdTensor:$X_GRAD);
  let lowering = [{ lowerElementwiseKernel(op, "clip_grad", {"min", "max"}) }];
  let spmdRule = "clip_grad";
  let loopOp = "clip_grad";
  let loopImmediates = ["min", "max"];
}
def Pd_SoftmaxGradOp : Pd_GradOp<"softmax_grad", "softmax"> {
  let arguments = (ins PdTensor:$Out, PdTensor:$Out_GRAD, PdInt<"-1">:$axis);
  let results = (outs PdTensor:$X_GRAD);
  let lowering = [{ lowerSoftmaxGrad(op) }];
  let spmdRule = "softmax_grad";
}
class Pd_ReduceGradOp<string mnemonic, bit isMean> : Pd_GradOp<mnemonic, "a reduction"> {
  let arguments = (ins PdTensor:$X, PdTensor:$Out_GRAD, PdInts<"[0]">:$dim,
                       PdBool<"false">:$keep_dim, PdBool<"false">:$reduce_all,
                       PdInt<"-1">:$in_dtype, PdInt<"-1">:$out_dtype);
  let results = (outs PdTensor:$X_GRAD);
  let lowering = "lowerReduceGrad(op, /*isMean=*/" # !if(isMean, "true", "false") #
                 ", /*all=*/false)";
  let spmdRule = !if(isMean, "mean_grad", "sum_grad");
  let spmdAttrs = ["axis:dim", "keepdim:keep_dim"];
}
def Pd_ReduceSumGradOp : Pd_ReduceGradOp<"reduce_sum_grad", 0>;
def Pd_ReduceMeanGradOp : Pd_ReduceGradOp<"reduce_mean_grad", 1>;
def Pd_Reshape2GradOp : Pd_GradOp<"reshape2_grad", "reshape2"> {
  let arguments = (ins PdTensor:$XShape, PdTensor:$Out_GRAD, PdInts<"[]">:$shape);
  let results = (outs PdTensor:$X_GRAD);
  let lowering = [{ lowerReshapeGrad(op) }];
  let spmdRule = "reshape_grad";
}
def Pd_Transpose2GradOp : Pd_GradOp<"transpose2_grad", "transpose2"> {
  let arguments = (ins PdTensor:$XShape, PdTensor:$Out_GRAD, PdInts<"[]">:$axis);
  let results = (outs PdTensor:$X_GRAD);
  let lowering = [{ lowerTransposeGrad(op) }];
  let spmdRule = "transpose_grad";
  let spmdAttrs = ["perm:axis"];
}
def Pd_ConcatGradOp : Pd_GradOp<"concat_grad", "concat"> {
  let arguments = (ins Variadic<PdTensor>:$X, PdTensor:$Out_GRAD, PdInt<"0">:$axis);
  let results = (outs Variadic<PdTensor>:$X_GRAD);
  let lowering = [{ lowerConcatGrad(op) }];
  let spmdRule = "concat_grad";
}
def Pd_SliceGradOp : Pd_GradOp<"slice_grad", "slice"> {
  let arguments = (ins PdTensor:$Input, PdTensor:$Out_GRAD, PdInts<"[]">:$axes,
                       PdInts<"[]">:$starts, PdInts<"[]">:$ends,
                       PdInts<"[]">:$decrease_axis, PdInts<"[]">:$infer_flags);
  let results = (outs PdTensor:$Input_GRAD);
  let lowering = [{ lowerSliceGrad(op) }];
  let spmdRule = "slice_grad";
}
def Pd_LookupTableV2GradOp : Pd_GradOp<"lookup_table_v2_grad", "lookup_table_v2"> {
  let arguments = (ins PdTensor:$Ids, PdTensor:$W, PdTensor:$Out_GRAD,
                       PdLong<"-1">:$padding_idx, PdBool<"false">:$is_sparse);
  let results = (outs PdTensor:$W_GRAD);
  let lowering = [{ lowerLookupTableGrad(op) }];
  let spmdRule = "embedding_grad";
  let spmdAttrs = ["sparse:is_sparse"];
}
def Pd_LayerNormGradOp
    : Pd_GradOp<"layer_norm_grad", "layer_norm", [AttrSizedOperandSegments]> {
  let arguments = (ins PdTensor:$X, Optional<PdTensor>:$Scale, Optional<PdTensor>:$Bias,
                       PdTensor:$Mean, PdTensor:$Variance, PdTensor:$Y_GRAD,
                       PdFloat<"1e-05">:$epsilon, PdInt<"1">:$begin_norm_axis);
  let results = (outs PdTensor:$X_GRAD, PdTensor:$Scale_GRAD, PdTensor:$Bias_GRAD);
  let lowering = [{ lowerLayerNormGrad(op) }];
  let spmdRule = "layer_norm_grad";
}
def Pd_DropoutGradOp : Pd_GradOp<"dropout_grad", "dropout"> {
  let arguments = (ins PdTensor:$Mask, PdTensor:$Out_GRAD, PdFloat<"0.5">:$dropout_prob,
                       PdBool<"false">:$is_test,
                       PdStr<"downgrade_in_infer">:$dropout_implementation);
  let results = (outs PdTensor:$X_GRAD);
  let lowering = [{ lowerDropoutGrad(op) }];
  let spmdRule = "dropout_grad";
}
def Pd_SoftmaxWithCrossEntropyGradOp
    : Pd_GradOp<"softmax_with_cross_entropy_grad", "softmax_with_cross_entropy"> {
  let arguments = (ins PdTensor:$Label, PdTensor:$Softmax, PdTensor:$Loss_GRAD,
                       PdBool<"false">:$soft_label, PdInt<"-100">:$ignore_index,
                       PdBool<"true">:$numeric_stable_mode, PdInt<"-1">:$axis);
  let results = (outs PdTensor:$Logits_GRAD);
  let lowering = [{ lowerSoftmaxCrossEntropyGrad(op) }];
  let spmdRule = "cross_entropy_with_softmax_grad";
}

// --- Optimizers -------------------------------------------------------------------
//
// `<S>Out` is the new value of input S; a `pd.write_var` stores it back.
// No PIR form: training programs only, and PIR's in-place optimizer ops
// (`pd_op.adam_`) order their operands differently.

def Pd_SgdOp : Pd_CatalogOp<"sgd", [Pure]> {
  let summary = "Param - LearningRate * Grad";
  let arguments = (ins PdTensor:$Param, PdTensor:$LearningRate, PdTensor:$Grad,
                       PdBool<"false">:$multi_precision);
  let results = (outs PdTensor:$ParamOut);
  let hasPirForm = 0;
  let inferRule = "inferOptimizer";
  let lowering = [{ lowerOptimizer(op) }];
  let spmdRule = "sgd";
}
def Pd_MomentumOp : Pd_CatalogOp<"momentum", [Pure]> {
  let summary = "Momentum update (Nesterov when `use_nesterov`)";
  let arguments = (ins PdTensor:$Param, PdTensor:$Grad, PdTensor:$Velocity,
                       PdTensor:$LearningRate, PdFloat<"0.9">:$mu,
                       PdBool<"false">:$use_nesterov, PdStr<"">:$regularization_method,
                       PdFloat<"0">:$regularization_coeff, PdBool<"false">:$multi_precision,
                       PdFloat<"1">:$rescale_grad);
  let results = (outs PdTensor:$ParamOut, PdTensor:$VelocityOut);
  let hasPirForm = 0;
  let inferRule = "inferOptimizer";
  let lowering = [{ lowerOptimizer(op) }];
  let spmdRule = "momentum";
}
class Pd_AdamBase<string mnemonic, string what, dag extraAttrs>
    : Pd_CatalogOp<mnemonic, [Pure]> {
  let summary = what;
  let hasPirForm = 0;
  let arguments = !con((ins PdTensor:$Param, PdTensor:$Grad, PdTensor:$LearningRate,
                            PdTensor:$Moment1, PdTensor:$Moment2, PdTensor:$Beta1Pow,
                            PdTensor:$Beta2Pow, PdFloat<"0.9">:$beta1,
                            PdFloat<"0.999">:$beta2, PdFloat<"1e-08">:$epsilon,
                            PdBool<"false">:$lazy_mode, PdBool<"false">:$multi_precision),
                       extraAttrs);
  let results = (outs PdTensor:$ParamOut, PdTensor:$Moment1Out, PdTensor:$Moment2Out,
                      PdTensor:$Beta1PowOut, PdTensor:$Beta2PowOut);
  let inferRule = "inferOptimizer";
  let lowering = [{ lowerOptimizer(op) }];
  let spmdRule = mnemonic;
}
def Pd_AdamOp : Pd_AdamBase<"adam", "Adam update", (ins)>;
def Pd_AdamwOp : Pd_AdamBase<"adamw", "Adam with decoupled weight decay (`coeff`)",
    (ins PdFloat<"0.01">:$coeff, PdFloat<"1">:$lr_ratio, PdBool<"true">:$with_decay)>;

// The adaptive-rate updates of Paddle's fluid optimizers (adagrad_op.cc,
// decayed_adagrad_op.cc, rmsprop_op.cc, ftrl_op.cc), which the parameter
// servers of Paddle's pserver mode run as well.
def Pd_AdagradOp : Pd_CatalogOp<"adagrad", [Pure]> {
  let summary = "Adagrad: Moment + Grad², then Param − lr·Grad/(sqrt(Moment) + epsilon)";
  let arguments = (ins PdTensor:$Param, PdTensor:$Grad, PdTensor:$Moment,
                       PdTensor:$LearningRate, PdFloat<"1e-06">:$epsilon,
                       PdBool<"false">:$multi_precision);
  let results = (outs PdTensor:$ParamOut, PdTensor:$MomentOut);
  let hasPirForm = 0;
  let inferRule = "inferOptimizer";
  let lowering = [{ lowerAdagrad(op) }];
  let spmdRule = "adagrad";
}
def Pd_DecayedAdagradOp : Pd_CatalogOp<"decayed_adagrad", [Pure]> {
  let summary = "Adagrad over a decayed Moment: decay·Moment + (1 − decay)·Grad²";
  let arguments = (ins PdTensor:$Param, PdTensor:$Grad, PdTensor:$Moment,
                       PdTensor:$LearningRate, PdFloat<"0.95">:$decay,
                       PdFloat<"1e-06">:$epsilon);
  let results = (outs PdTensor:$ParamOut, PdTensor:$MomentOut);
  let hasPirForm = 0;
  let inferRule = "inferOptimizer";
  let lowering = [{ lowerAdagrad(op) }];
  let spmdRule = "decayed_adagrad";
}
// MeanGrad, the moving average of the gradient, is what `centered` divides
// by; Paddle's RMSProp optimizer always gives it.
def Pd_RmspropOp : Pd_CatalogOp<"rmsprop", [Pure]> {
  let summary = "RMSProp with momentum (centered when `centered`)";
  let arguments = (ins PdTensor:$Param, PdTensor:$MeanSquare, Optional<PdTensor>:$MeanGrad,
                       PdTensor:$LearningRate, PdTensor:$Grad, PdTensor:$Moment,
                       PdFloat<"1e-10">:$epsilon, PdFloat<"0.9">:$decay,
                       PdFloat<"0">:$momentum, PdBool<"false">:$centered);
  let results = (outs PdTensor:$ParamOut, PdTensor:$MomentOut, PdTensor:$MeanSquareOut,
                      PdTensor:$MeanGradOut);
  let optionalOutputs = ["MeanGradOut"];
  let hasPirForm = 0;
  let inferRule = "inferRmsprop";
  let lowering = [{ lowerRmsprop(op) }];
  let spmdRule = "rmsprop";
}
def Pd_FtrlOp : Pd_CatalogOp<"ftrl", [Pure]> {
  let summary = "FTRL-Proximal (Follow The Regularized Leader) with l1 and l2";
  let arguments = (ins PdTensor:$Param, PdTensor:$SquaredAccumulator,
                       PdTensor:$LinearAccumulator, PdTensor:$Grad, PdTensor:$LearningRate,
                       PdFloat<"0">:$l1, PdFloat<"0">:$l2, PdFloat<"-0.5">:$lr_power);
  let results = (outs PdTensor:$ParamOut, PdTensor:$SquaredAccumOut, PdTensor:$LinearAccumOut);
  let hasPirForm = 0;
  let inferRule = "inferOptimizer";
  let lowering = [{ lowerFtrl(op) }];
  let spmdRule = "ftrl";
}

// --- Collective communication ---------------------------------------------------
//
// Paddle's c_* ops over the communicator ring `ring_id`. They are not Pure:
// every rank must issue the same collectives in the same order, so no pass
// may drop, merge or reorder them as if they were arithmetic.

class Pd_CollectiveOp<string mnemonic, string what> : Pd_CatalogOp<mnemonic> {
  let hasPirForm = 0; // distributed training programs only; no PIR form declared

  let summary = what;
  let results = (outs PdTensor:$Out);
  let inferRule = "inferSameAsX";
  let lowering = [{ lowerCollective(op) }];
  let spmdRule = mnemonic;
}
def Pd_CAllreduceSumOp : Pd_CollectiveOp<"c_allreduce_sum", "Sum of X over every rank"> {
  let arguments = (ins PdTensor:$X, PdInt<"0">:$ring_id, PdBool<"false">:$use_calc_stream,
                       PdBool<"false">:$use_model_parallel);
}
def Pd_CBroadcastOp : Pd_CollectiveOp<"c_broadcast", "X of rank `root` on every rank"> {
  let arguments = (ins PdTensor:$X, PdInt<"0">:$ring_id, PdInt<"0">:$root,
                       PdBool<"false">:$use_calc_stream);
}
def Pd_CReduceSumOp : Pd_CollectiveOp<"c_reduce_sum",
    "Sum of X over every rank, on rank `root_id` (others keep X)"> {
  let arguments = (ins PdTensor:$X, PdInt<"0">:$ring_id, PdInt<"0">:$root_id,
                       PdBool<"false">:$use_calc_stream);
}
// The reshard transitions of sharded programs (docs/sharding.md). Their ring
// is a group of ranks along one axis of the program's mesh: ring 0 is every
// rank, ring 1+a the groups along mesh axis a, `nranks` the group's size.
// Where Paddle's op works on axis 0 only (c_allgather, c_reducescatter,
// alltoall) or the last axis (c_split), the axis attributes default to it.
def Pd_CAllreduceMaxOp : Pd_CollectiveOp<"c_allreduce_max", "Maximum of X over every rank"> {
  let arguments = (ins PdTensor:$X, PdInt<"0">:$ring_id, PdBool<"false">:$use_calc_stream,
                       PdBool<"false">:$use_model_parallel);
}
def Pd_CAllreduceMinOp : Pd_CollectiveOp<"c_allreduce_min", "Minimum of X over every rank"> {
  let arguments = (ins PdTensor:$X, PdInt<"0">:$ring_id, PdBool<"false">:$use_calc_stream,
                       PdBool<"false">:$use_model_parallel);
}
def Pd_CAllreduceProdOp : Pd_CollectiveOp<"c_allreduce_prod", "Product of X over every rank"> {
  let arguments = (ins PdTensor:$X, PdInt<"0">:$ring_id, PdBool<"false">:$use_calc_stream,
                       PdBool<"false">:$use_model_parallel);
}
def Pd_CAllgatherOp : Pd_CollectiveOp<"c_allgather",
    "Every rank's X concatenated along `axis`, in rank order"> {
  let arguments = (ins PdTensor:$X, PdInt<"0">:$ring_id, I32Attr:$nranks, PdInt<"0">:$axis,
                       PdBool<"false">:$use_calc_stream);
  let inferRule = "inferCAllgather";
}
def Pd_CReducescatterOp : Pd_CollectiveOp<"c_reducescatter",
    "This rank's slice along `axis` of the sum of X over every rank"> {
  let arguments = (ins PdTensor:$X, PdInt<"0">:$ring_id, I32Attr:$nranks, PdInt<"0">:$axis,
                       PdBool<"false">:$use_calc_stream);
  let inferRule = "inferCReducescatter";
}
def Pd_AlltoallOp : Pd_CollectiveOp<"alltoall",
    "X split along `split_axis`, piece k sent to rank k, the received pieces "
    "concatenated along `concat_axis`"> {
  let arguments = (ins PdTensor:$X, PdInt<"0">:$ring_id, I32Attr:$nranks,
                       PdInt<"0">:$split_axis, PdInt<"0">:$concat_axis,
                       PdBool<"false">:$use_calc_stream);
  let inferRule = "inferAlltoall";
}
def Pd_CSplitOp : Pd_CollectiveOp<"c_split",
    "This rank's slice of X along `axis` (no communication)"> {
  let arguments = (ins PdTensor:$X, PdInt<"-1">:$rank, I32Attr:$nranks, PdInt<"0">:$ring_id,
                       PdBool<"false">:$use_calc_stream, PdBool<"false">:$use_model_parallel,
                       PdInt<"-1">:$axis);
  let inferRule = "inferCSplit";
}
def Pd_CRootOnlyOp : Pd_CollectiveOp<"c_root_only",
    "X on rank `root`, zeros on the others: a replicated value as partial sums"> {
  let arguments = (ins PdTensor:$X, PdInt<"0">:$ring_id, PdInt<"0">:$root);
}
def Pd_CSyncCalcStreamOp : Pd_CollectiveOp<"c_sync_calc_stream",
    "X, after the compute stream has finished producing it"> {
  let arguments = (ins PdTensor:$X);
}
def Pd_CSyncCommStreamOp : Pd_CollectiveOp<"c_sync_comm_stream",
    "X, after the communication stream of `ring_id` has finished with it"> {
  let arguments = (ins PdTensor:$X, PdInt<"0">:$ring_id);
}

// --- Communicator setup (the startup program of the collective transpile) ----
//
// Paddle's startup program creates the communicator of ring `ring_id`:
// c_gen_nccl_id agrees on an id (rank 0 makes one and sends it to the
// `other_endpoints`) and stores it in a RAW variable; c_comm_init joins the
// communicator of `nranks` ranks as `rank`. The RAW variable is a
// `tensor<0xui8>` value here, which only c_comm_init reads. distc's SPMD
// programs leave the rank (-1) and the endpoints (empty) to the launcher's
// rendezvous. Neither op is Pure: every rank sets up the communicator.

def Pd_CGenNcclIdOp : Pd_CatalogOp<"c_gen_nccl_id"> {
  let hasPirForm = 0; // distributed training programs only; no PIR form declared

  let summary = "The communicator id of ring `ring_id`, agreed by every rank";
  let arguments = (ins StrAttr:$endpoint, PdStrings<"[]">:$other_endpoints,
                       PdInt<"0">:$rank, PdInt<"0">:$ring_id);
  let results = (outs PdTensor:$Out);
  let assemblyFormat = "attr-dict `:` functional-type(operands, results)";
  let inferRule = "inferCGenNcclId";
  let lowering = [{ lowerCommunicatorSetup(op) }];
  let spmdRule = "c_gen_nccl_id";
}

def Pd_CCommInitOp : Pd_CatalogOp<"c_comm_init"> {
  let hasPirForm = 0; // distributed training programs only; no PIR form declared

  let summary = "Joins the communicator of `nranks` ranks whose id is X";
  let arguments = (ins PdTensor:$X, I32Attr:$nranks, I32Attr:$rank,
                       PdInt<"-1">:$device_id, PdInt<"0">:$ring_id);
  let inferRule = "inferCCommInit";
  let lowering = [{ lowerCommunicatorSetup(op) }];
  let spmdRule = "c_comm_init";
}

// --- Memory (release_memory) -----------------------------------------------------

def Pd_DeleteVarOp : Pd_CatalogOp<"delete_var"> {
  let hasPirForm = 0; // release_memory writes it into ProgramDesc programs only

  let summary = "Frees the variables X: no op after it reads them";
  let description = [{
    Paddle's delete_var, as `release_memory` places it (the
    distc-release-memory pass): right after the last op that reads X. The
    planned arena already ends every temporary's life at its last use, so
    it lowers to nothing; it is there so the program says so as Paddle's
    does.
  }];
  let arguments = (ins Variadic<PdTensor>:$X);
  let inferRule = "inferDeleteVar";
  let lowering = [{ lowerDeleteVar(op) }];
  let spmdRule = "delete_var";
}

// --- Fused communication (BuildStrategy.fuse_all_reduce_ops) -----------------

def Pd_CoalesceTensorOp : Pd_CatalogOp<"coalesce_tensor", [Pure]> {
  let hasPirForm = 0; // distributed training programs only; no PIR form declared

  let summary = "The Input tensors as consecutive slices of one 1-D buffer";
  let description = [{
    Paddle's coalesce_tensor: Output[i] has Input[i]'s type (and, with
    `copy_data`, its value; with `set_constant` every element is
    `constant`); FusedOutput is the 1-D buffer whose consecutive elements
    are the Outputs (padded per slice with `use_align`, which leaves its
    size to the device). In Paddle the Outputs share FusedOutput's memory,
    so a collective on FusedOutput changes them too; in SSA the later
    values of the slices are read back with `pd.fused_slices`.

    ```mlir
    %o:2, %f = pd.coalesce_tensor %dw, %db {copy_data = true, use_align = false}
        : (tensor<4x2xf32>, tensor<2xf32>) -> (tensor<4x2xf32>, tensor<2xf32>, tensor<10xf32>)
    ```
  }];
  let arguments = (ins Variadic<PdTensor>:$Input, PdInt<"5">:$dtype,
                       PdBool<"false">:$copy_data, PdBool<"false">:$set_constant,
                       PdBool<"false">:$persist_output, PdFloat<"0">:$constant,
                       PdBool<"false">:$check_name, PdBool<"true">:$use_align,
                       PdInt<"-1">:$align_size, PdInt<"-1">:$user_defined_size_of_dtype,
                       PdLongs<"[]">:$concated_shapes, PdLongs<"[]">:$concated_ranks);
  let results = (outs Variadic<PdTensor>:$Output, PdTensor:$FusedOutput);
  let inferRule = "inferCoalesceTensor";
  let lowering = [{ lowerCoalesceTensor(op) }];
  let spmdRule = "coalesce_tensor";
}

def Pd_FusedSlicesOp : Pd_Op<"fused_slices", [Pure]> {
  let summary = "The tensors a fused buffer holds, read back as its slices";
  let description = [{
    Result i is elements [offsets[i], offsets[i] + numel(result i)) of the
    1-D `fused` buffer, in result i's static shape: the inverse of
    `pd.coalesce_tensor`, applied to a later value of its FusedOutput (after
    it was scaled and all-reduced in place, as Paddle does). Paddle has no
    such op: there the coalesced variables alias the fused one, so the
    exporter writes nothing for it and the results keep those variables'
    names; the importer creates it where a coalesced variable is read after
    its fused buffer changed. The lowering makes each result a view of the
    fused buffer at its offset.

    ```mlir
    %g:2 = pd.fused_slices %r {offsets = array<i64: 0, 8>}
        : (tensor<10xf32>) -> (tensor<4x2xf32>, tensor<2xf32>)
    ```
  }];
  let arguments = (ins PdTensor:$fused, DenseI64ArrayAttr:$offsets);
  let results = (outs Variadic<PdTensor>:$slices);
  let assemblyFormat = "$fused attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let lowering = [{ lowerFusedSlices(op) }];
}

// --- Startup-program initializers ---------------------------------------------

class Pd_RandomOp<string mnemonic, string what, Attr shapeAttr,
                  string a, string aDefault, string b, string bDefault>
    : Pd_CatalogOp<mnemonic> {
  let hasPirForm = 0; // startup programs only (PIR: pd_op.uniform, pd_op.gaussian)
  let summary = what # " of `shape` and `dtype` (seed 0: from the program seed)";
  let arguments = !con((ins shapeAttr:$shape),
                       !dag(ins, [PdFloat<aDefault>, PdFloat<bDefault>], [a, b]),
                       (ins PdInt<"0">:$seed, PdInt<"5">:$dtype));
  let results = (outs PdTensor:$Out);
  let assemblyFormat = "attr-dict `:` functional-type(operands, results)";
  let foldedInputs = ["ShapeTensor=shape", "ShapeTensorList=shape"];
  let isInitializer = 1;
  let inferRule = "inferCreation";
  let lowering = [{ lowerRandom(op) }];
  let spmdRule = "full";
}
def Pd_UniformRandomOp : Pd_RandomOp<"uniform_random",
    "Uniform samples in [min, max)", PdLongs<"[]">, "min", "-1", "max", "1">;
def Pd_GaussianRandomOp : Pd_RandomOp<"gaussian_random",
    "Normal samples", PdLongs<"[]">, "mean", "0", "std", "1">;
def Pd_TruncatedGaussianRandomOp : Pd_RandomOp<"truncated_gaussian_random",
    "Normal samples truncated to two std", PdInts<"[]">, "mean", "0", "std", "1">;

include "distc/Dialect/Pd/PdShapeOps.td"
include "distc/Dialect/Pd/PdNormOps.td"
include "distc/Dialect/Pd/PdConvOps.td"
include "distc/Dialect/Pd/PdPsOps.td"
include "distc/Dialect/Pd/PdFusionOps.td"

#endif // DISTC_DIALECT_PD_PDOPS_TD
