//===- ProgramLowering.h - lowering state for one pd.program --*- C++ -*-===//
//
// Private to lib/compiler/Target. One ProgramLowering turns one pd.program into one
// artifact Program; the op-family files (LowerMath.cpp, LowerShape.cpp,
// LowerNn.cpp, ...) implement its `lower*` members, and each op's
// definition in PdOps.td names the member that lowers it (`lowering`).
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_TARGET_PROGRAMLOWERING_H
#define DISTC_LIB_TARGET_PROGRAMLOWERING_H

#include "distc/Dialect/Pd/OpAttributes.h"
#include "distc/Target/LowerToArtifact.h"
#include "distc/Target/SymbolicShape.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"

#include <array>
#include <map>

namespace distc::target {

using artifact::AttrDesc;
using artifact::BufferKind;

/// State shared by all programs of one artifact.
struct ArtifactState {
  artifact::ArtifactDesc desc;
  llvm::StringMap<int32_t> persistentBuffers; // pd.var name -> buffer
  LoweringOptions options;
  std::vector<int32_t> symbolParent; // union-find over desc.symbols
  /// The i64 [1] persistent step counter (created on first use).
  int32_t stepCounter = -1;
  /// Per ring id, the size of its groups: ring 0 is every rank, ring 1 + a
  /// the groups along axis a of a partitioned module's mesh.
  std::vector<int64_t> ringSizes = {0};
  /// Parameter-server mode: by block name, the (server, slot) a trainer's
  /// ps_send sends a gradient block to, and a ps_recv receives a parameter
  /// block from (the servers' receives and serves, artifact.fbs).
  llvm::StringMap<std::pair<int32_t, int32_t>> psReceives, psServes;
  /// The rows of each served parameter block.
  llvm::StringMap<int64_t> psServeRows;
  /// By (name, server): the slot of a served block (a distributed table's
  /// blocks share the table's name, one per server).
  std::map<std::pair<std::string, int32_t>, int32_t> psServeSlots;

  int32_t findSymbol(int32_t sym);
  /// Records that two symbolic dims an op requires to be equal are one.
  void unify(const DimDesc &a, const DimDesc &b);
};

/// Lowers every parameter server of `module` (its nested `@pserver<i>`
/// modules) into `state.desc.pservers`, and records the slots the
/// trainer's calls name (LowerParameterServer.cpp).
mlir::LogicalResult lowerParameterServers(mlir::ModuleOp module, ArtifactState &state);

class ProgramLowering {
public:
  ProgramLowering(ArtifactState &state, artifact::ProgramDesc &program)
      : state(state), program(program) {}

  mlir::LogicalResult lower(mlir::Operation *pdProgram);
  /// Lowers the ops of one block (a parameter server's optimize block).
  mlir::LogicalResult lowerBlock(mlir::Block &block);

  // --- buffers -----------------------------------------------------------
  int32_t addBuffer(std::string name, artifact::DType dtype, SymShape dims, BufferKind kind,
                    int32_t aliasOf = -1);
  /// A view of `buffer` with other dims (same element count).
  int32_t view(int32_t buffer, SymShape dims);
  // By value: emitting temps and views grows the buffer table, which would
  // invalidate a reference into it.
  SymShape dimsOf(int32_t buffer) const { return state.desc.buffers[buffer].dims; }
  /// The persistent step counter (kStepCounterName) train-time randomness
  /// reads; the runtime writes the step number into it before each step.
  int32_t stepCounter();
  std::vector<artifact::BufferDesc> &artifactBuffers() { return state.desc.buffers; }
  int32_t bufferOf(mlir::Value value) const { return buffers.lookup(value); }
  /// Binds `value` to `buffer`. Every binding goes through here, so that
  /// the values living in a storage are known without scanning them all.
  void bind(mlir::Value value, int32_t buffer);
  SymShape dimsOf(mlir::Value value) const { return dimsOf(bufferOf(value)); }
  /// Binds `result` to a new buffer with `dims` (reconciled with its static
  /// type), or to the persistent buffer it is written to — unless the op
  /// also reads that buffer and is not `elementwiseInPlace` (each output
  /// element depends only on the same element of its inputs, as in the
  /// optimizer updates). Fails with an error naming the variable when
  /// `dims` contradict the type.
  mlir::FailureOr<int32_t> defineResult(mlir::Value result, SymShape dims,
                                        bool elementwiseInPlace = false);
  /// Binds `result` to a view of `source` (reshapes, squeezes).
  mlir::FailureOr<int32_t> defineView(mlir::Value result, int32_t source, SymShape dims);

  void unify(const DimDesc &a, const DimDesc &b) { state.unify(a, b); }
  void emit(llvm::StringRef kernel, std::vector<int32_t> inputs, std::vector<int32_t> outputs,
            std::vector<AttrDesc> attrs = {});

  /// Paddle variable name of a value (from pd.out_names, read_var or feed).
  std::string nameOf(mlir::Value value) const;
  std::string describe(const SymShape &dims) const { return toString(dims, state.desc.symbols); }
  mlir::InFlightDiagnostic error(mlir::Operation *op) const;

  // --- op families (LowerMath.cpp, LowerShape.cpp, LowerNn.cpp) ----------
  mlir::LogicalResult lowerElementwise(mlir::Operation *op, llvm::StringRef binaryOp);
  mlir::LogicalResult lowerUnary(mlir::Operation *op, llvm::StringRef unaryOp);
  /// An op whose kernel takes the op's operands, in order, element by
  /// element, and writes one result of the first operand's shape, with the
  /// op's Float attributes `floatAttrs` passed on under the same names: the
  /// whole lowering of an op whose kernel is declared that way (clip,
  /// clip_grad). A result nothing uses (a gradient nobody asked for) is not
  /// computed.
  mlir::LogicalResult lowerElementwiseKernel(mlir::Operation *op, llvm::StringRef kernel,
                                             llvm::ArrayRef<llvm::StringRef> floatAttrs);
  mlir::LogicalResult lowerScale(mlir::Operation *op);
  mlir::LogicalResult lowerCast(mlir::Operation *op);
  mlir::LogicalResult lowerAssign(mlir::Operation *op);
  mlir::LogicalResult lowerMul(mlir::Operation *op);
  mlir::LogicalResult lowerMatmul(mlir::Operation *op);
  /// matmul_v2's lowering with the transposes given (matmul v1 names them
  /// otherwise).
  mlir::LogicalResult lowerMatmulAs(mlir::Operation *op, bool transX, bool transY);
  mlir::LogicalResult lowerSoftmax(mlir::Operation *op);
  mlir::LogicalResult lowerReduce(mlir::Operation *op, llvm::StringRef reduceOp);
  mlir::LogicalResult lowerMean(mlir::Operation *op);
  mlir::LogicalResult lowerSquaredL2Norm(mlir::Operation *op);
  mlir::LogicalResult bindXShape(mlir::Operation *op);
  mlir::LogicalResult lowerCollective(mlir::Operation *op);
  /// The `ring_id` of a collective, checked against the rings the module
  /// has (and its `nranks`, where it gives one, against the ring's size).
  mlir::FailureOr<int64_t> ringOf(mlir::Operation *op);
  mlir::LogicalResult lowerCommunicatorSetup(mlir::Operation *op);
  /// delete_var: nothing; the arena ends lives at last uses already.
  mlir::LogicalResult lowerDeleteVar(mlir::Operation *) { return mlir::success(); }

  mlir::LogicalResult lowerReshape(mlir::Operation *op);
  mlir::LogicalResult lowerTranspose(mlir::Operation *op);
  mlir::LogicalResult lowerConcat(mlir::Operation *op);
  mlir::LogicalResult lowerSplit(mlir::Operation *op);
  mlir::LogicalResult lowerSlice(mlir::Operation *op);

  // --- shape-type ops of image models (LowerResize.cpp) ------------------
  mlir::LogicalResult lowerFlattenRange(mlir::Operation *op);
  mlir::LogicalResult lowerSqueeze(mlir::Operation *op);
  mlir::LogicalResult lowerUnsqueeze(mlir::Operation *op);
  mlir::LogicalResult lowerShapeOf(mlir::Operation *op);
  mlir::LogicalResult lowerShuffleChannel(mlir::Operation *op, bool grad);
  /// pad2d/pad3d (innerFirst: pad3d's [left, right, top, ...] order) and
  /// their gradients; `valueAttr` names the constant-mode fill value.
  mlir::LogicalResult lowerPad(mlir::Operation *op, bool innerFirst, llvm::StringRef valueAttr);
  mlir::LogicalResult lowerInterp(mlir::Operation *op);

  mlir::LogicalResult lowerFillConstant(mlir::Operation *op);
  mlir::LogicalResult lowerRandom(mlir::Operation *op);
  mlir::LogicalResult lowerLookupTable(mlir::Operation *op);
  mlir::LogicalResult lowerLayerNorm(mlir::Operation *op);
  mlir::LogicalResult lowerDropout(mlir::Operation *op);
  mlir::LogicalResult lowerFusedDropoutAdd(mlir::Operation *op);
  /// Dropout of `op`'s operand 0 with probability `p` and implementation
  /// `impl`, `y` (when given) added to the result, the mask's seed derived
  /// from `seedName` unless the op fixes it; result 0 is the output and
  /// result 1, when present, the mask.
  mlir::LogicalResult lowerDropoutAs(mlir::Operation *op, mlir::Value y, double p,
                                     llvm::StringRef impl, const std::string &seedName);
  /// One dropout over buffers: of `x`, with `y` (when >= 0) added to the
  /// result, rate `p`; in the training form a fresh mask each step, written
  /// to `mask`, from `seed`.
  struct DropoutCall {
    int32_t x = -1, y = -1;
    double p = 0;
    bool upscale = true, training = false;
    int64_t seed = 0;
    int32_t mask = -1;
  };
  /// Emits `call`. Its result goes to the buffer `defineOut` defines,
  /// except in the inference form of upscale_in_train without y, which is
  /// x itself; returns the buffer holding it. `name` names temporaries.
  mlir::FailureOr<int32_t> emitDropout(const DropoutCall &call, const std::string &name,
                                       llvm::function_ref<mlir::FailureOr<int32_t>()> defineOut);
  /// A fused op's dropout whose attributes are `prefix`_rate,
  /// _implementation, _fix_seed, _seed (and _seed_name, the name an unfixed
  /// seed derives from, else `mask`'s): of `in`, `y` (when >= 0) added, the
  /// result in `defineOut`'s buffer (emitDropout). Rate 0 is the identity.
  mlir::FailureOr<int32_t>
  emitFusedDropout(mlir::Operation *op, const std::string &prefix, int32_t in, int32_t y,
                   mlir::Value mask, const SymShape &maskDims,
                   llvm::function_ref<mlir::FailureOr<int32_t>()> defineOut);
  /// layer_norm of `in` ([rows, last dim] over `dims`) into results `y`,
  /// `mean`, `variance`, with the optional `scale` and `bias`.
  mlir::LogicalResult emitLayerNorm(int32_t in, mlir::Value scale, mlir::Value bias, mlir::Value y,
                                    mlir::Value mean, mlir::Value variance, const SymShape &dims,
                                    DimDesc rows, double epsilon);
  /// In an inference form, a dropout's mask is all ones: written when
  /// some op reads `mask`.
  mlir::LogicalResult fillMaskIfRead(mlir::Value mask, const SymShape &dims);
  /// fused_attention and its gradient (LowerAttention.cpp).
  mlir::LogicalResult lowerFusedAttention(mlir::Operation *op);
  mlir::LogicalResult lowerFusedAttentionGrad(mlir::Operation *op);
  /// fused_feedforward and its gradient (LowerFeedforward.cpp).
  mlir::LogicalResult lowerFusedFeedforward(mlir::Operation *op);
  mlir::LogicalResult lowerFusedFeedforwardGrad(mlir::Operation *op);
  /// A training dropout's seed: `seed` when fixed and non-zero, else one
  /// derived from the program seed and `name`, the dropout's output.
  int64_t dropoutSeed(bool fixSeed, int64_t seed, const std::string &name) const;
  /// Whether dropout (or its gradient) `op` takes its training form, a mask
  /// drawn each step: in a train program unless marked is_test. Elsewhere it
  /// is the inference form, and its gradient must match that.
  bool isTrainingDropout(mlir::Operation *op) const {
    return program.mode == "train" && !pd::OpAttributes(op).getBool("is_test");
  }
  mlir::LogicalResult lowerSoftmaxCrossEntropy(mlir::Operation *op);
  mlir::LogicalResult lowerTopK(mlir::Operation *op);
  mlir::LogicalResult lowerAccuracy(mlir::Operation *op);

  // --- convolutions and pooling, forward and backward (LowerConv.cpp) ----
  mlir::LogicalResult lowerConv2d(mlir::Operation *op);
  mlir::LogicalResult lowerConv2dTranspose(mlir::Operation *op);
  mlir::LogicalResult lowerConv2dGrad(mlir::Operation *op);
  mlir::LogicalResult lowerConv2dTransposeGrad(mlir::Operation *op);
  mlir::LogicalResult lowerPool2d(mlir::Operation *op);
  mlir::LogicalResult lowerPool2dGrad(mlir::Operation *op);

  // --- backward ops (LowerGrad.cpp) and optimizers (LowerOptimizer.cpp) -
  mlir::LogicalResult lowerElementwiseGrad(mlir::Operation *op, llvm::StringRef kind);
  mlir::LogicalResult lowerMulGrad(mlir::Operation *op);
  mlir::LogicalResult lowerMatmulGrad(mlir::Operation *op);
  /// matmul_v2_grad's lowering with the transposes and the buffer of the
  /// output gradient `dout` given (matmul v1 scales it by alpha first).
  mlir::LogicalResult lowerMatmulGradAs(mlir::Operation *op, bool tx, bool ty, int32_t dout);
  mlir::LogicalResult lowerUnaryGrad(mlir::Operation *op, llvm::StringRef unaryOp);
  mlir::LogicalResult lowerSoftmaxGrad(mlir::Operation *op);
  mlir::LogicalResult lowerReduceGrad(mlir::Operation *op, bool isMean, bool all);
  mlir::LogicalResult lowerReshapeGrad(mlir::Operation *op);
  mlir::LogicalResult lowerTransposeGrad(mlir::Operation *op);
  mlir::LogicalResult lowerConcatGrad(mlir::Operation *op);
  mlir::LogicalResult lowerSliceGrad(mlir::Operation *op);
  mlir::LogicalResult lowerLookupTableGrad(mlir::Operation *op);
  mlir::LogicalResult lowerLayerNormGrad(mlir::Operation *op);
  mlir::LogicalResult lowerDropoutGrad(mlir::Operation *op);
  mlir::LogicalResult lowerFusedDropoutAddGrad(mlir::Operation *op);
  /// dropout's gradient `dx` of `dout` through `mask` (the training form)
  /// or the inference form's (a view or a scale), for dropout_grad and
  /// fused_dropout_add_grad `op`.
  mlir::LogicalResult emitDropoutGrad(mlir::Operation *op, mlir::Value mask, mlir::Value dout,
                                      mlir::Value dx, double p, llvm::StringRef impl);
  /// The same over buffers: dropout's gradient of `dy`, into the buffer
  /// `defineOut` defines, except in the inference form of upscale_in_train,
  /// which is `dy` itself; returns the buffer holding it.
  mlir::FailureOr<int32_t>
  emitDropoutGradOf(mlir::Value mask, int32_t dy, double p, bool upscale, bool training,
                    llvm::function_ref<mlir::FailureOr<int32_t>()> defineOut);
  /// The gradient of `dy` through fused op `op`'s dropout `prefix` (the
  /// attributes emitFusedDropout reads): `dy` itself at rate 0, else a
  /// temporary named after `name`.
  mlir::FailureOr<int32_t> emitFusedDropoutGrad(mlir::Operation *op, const std::string &prefix,
                                                int32_t dy, mlir::Value mask, const SymShape &dims,
                                                const std::string &name);
  /// A fused op's layer_norm_grad of `in` (`dims`, the last dim normalized)
  /// with the optional `scale`: X@GRAD into `dIn`, and the results
  /// `dScale` and `dBias` where their parameter is there and they are
  /// needed (emitLayerNorm's gradient).
  mlir::LogicalResult emitLayerNormGrad(int32_t in, mlir::Value scale, mlir::Value bias, int32_t dy,
                                        int32_t dIn, mlir::Value dScale, mlir::Value dBias,
                                        const SymShape &dims, double epsilon);
  /// The buffer of `result` (null or unneeded: -1).
  mlir::FailureOr<int32_t> defineIfNeeded(mlir::Value result, SymShape dims);
  mlir::LogicalResult lowerSoftmaxCrossEntropyGrad(mlir::Operation *op);
  mlir::LogicalResult lowerSum(mlir::Operation *op);
  mlir::LogicalResult lowerOptimizer(mlir::Operation *op);
  /// adagrad and decayed_adagrad (one kernel), rmsprop, ftrl
  /// (LowerOptimizer.cpp).
  mlir::LogicalResult lowerAdagrad(mlir::Operation *op);
  mlir::LogicalResult lowerRmsprop(mlir::Operation *op);
  mlir::LogicalResult lowerFtrl(mlir::Operation *op);

  // --- normalization, activations, matmul v1, arg_max (LowerNorm.cpp) ---
  /// Whether batch_norm (or its gradient) `op` normalizes with Mean and
  /// Variance rather than the batch's statistics: outside train programs,
  /// and where Paddle's attributes say so.
  bool usesGlobalStats(mlir::Operation *op) const;
  mlir::LogicalResult lowerBatchNorm(mlir::Operation *op);
  mlir::LogicalResult lowerBatchNormGrad(mlir::Operation *op);
  mlir::LogicalResult lowerFusedBatchNormGrad(mlir::Operation *op);
  mlir::LogicalResult lowerAffineChannel(mlir::Operation *op);
  mlir::LogicalResult lowerAffineChannelGrad(mlir::Operation *op);
  mlir::LogicalResult lowerMatmulV1(mlir::Operation *op);
  mlir::LogicalResult lowerMatmulV1Grad(mlir::Operation *op);
  mlir::LogicalResult lowerArgMax(mlir::Operation *op);

  // --- parameter-server communication (LowerParameterServer.cpp) --------
  mlir::LogicalResult lowerParameterServerOp(mlir::Operation *op);
  mlir::LogicalResult lowerSendRows(mlir::Operation *op);
  mlir::LogicalResult lowerPrefetch(mlir::Operation *op);

  // --- row-sparse values, Paddle's SelectedRows (LowerSelectedRows.cpp) -
  /// One part of a row-sparse value: Int64 row ids (-1: unused) and their
  /// values, one row each. `merged`: as merge_rows writes it (the used ids
  /// first, each once), which ps_send_rows sends as it is.
  struct RowsPart {
    int32_t rows;
    int32_t values;
    bool merged;
  };
  /// Whether `value` is lowered as row-sparse parts.
  bool isRowSparse(mlir::Value value) const { return rowParts.count(value); }
  /// Whether `op`'s lowering reads row-sparse operands as they are; every
  /// other op reads their dense form (densifyOperands).
  static bool takesRowSparse(mlir::Operation *op);
  void bindRows(mlir::Value value, std::vector<RowsPart> parts);
  /// The (rows, values) buffers of each part of `value`, in order.
  std::vector<int32_t> partBuffers(mlir::Value value) const;
  /// Binds each row-sparse operand of `op` to its dense form (rows_to_dense,
  /// once per value).
  mlir::LogicalResult densifyOperands(mlir::Operation *op);
  /// A Temp Int64 buffer of row ids.
  int32_t rowsBuffer(std::string name, SymShape dims);
  mlir::LogicalResult lowerSparseLookupGrad(mlir::Operation *op);
  mlir::LogicalResult lowerSparseSum(mlir::Operation *op);
  mlir::LogicalResult lowerSparseScale(mlir::Operation *op);
  mlir::LogicalResult lowerSplitSelectedRows(mlir::Operation *op);
  /// A distributed table's lookup: split_ids of the ids (or its
  /// gradient, as split_selected_rows), merge_ids of the prefetched rows.
  mlir::LogicalResult lowerSplitIds(mlir::Operation *op);
  mlir::LogicalResult lowerMergeIds(mlir::Operation *op);
  /// sgd with a row-sparse gradient: sgd_rows, in place.
  mlir::LogicalResult lowerSparseSgd(mlir::Operation *op);
  /// merge_rows of row-sparse `input` into blocks of `heights` rows named
  /// `names`.
  std::vector<RowsPart> emitMergeRows(mlir::Value input, llvm::ArrayRef<int64_t> heights,
                                      llvm::ArrayRef<std::string> names);
  /// The (rows, values) buffers of `value` as one merged part, merging it
  /// first when it is not one.
  mlir::FailureOr<std::vector<int32_t>> mergedRowsOf(mlir::Value value);

  // --- fused gradient buckets, in-place updates (LowerFusion.cpp) -------
  mlir::LogicalResult lowerCoalesceTensor(mlir::Operation *op);
  mlir::LogicalResult lowerFusedSlices(mlir::Operation *op);
  /// One `fused_elementwise` call: the loop program `code` (with `imms`)
  /// over `inputs`, output k receiving register `registers[k]`.
  void emitLoop(std::vector<int32_t> inputs, std::vector<int32_t> outputs,
                std::vector<int64_t> code, std::vector<double> imms,
                std::vector<int64_t> registers);
  /// pd.fusion_group: one `fused_elementwise` call running its program.
  mlir::LogicalResult lowerFusionGroup(mlir::Operation *op);
  /// fused_elemwise_add_activation: one fused_elementwise loop of the add
  /// and the activation; its gradient: the activation's gradient as a loop,
  /// then the add's (a view or a reduction, as elementwise_add_grad's).
  mlir::LogicalResult lowerFusedElemwiseActivation(mlir::Operation *op);
  mlir::LogicalResult lowerFusedElemwiseActivationGrad(mlir::Operation *op);
  /// fused_gemm_epilogue(_grad): gemm_epilogue(_grad) over 2-D views.
  mlir::LogicalResult lowerFusedGemmEpilogue(mlir::Operation *op);
  mlir::LogicalResult lowerFusedGemmEpilogueGrad(mlir::Operation *op);
  /// merged_adam, merged_momentum, merged_sgd: one multi-tensor update
  /// kernel (LowerOptimizer.cpp).
  mlir::LogicalResult lowerMergedOptimizer(mlir::Operation *op);
  /// Binds `result`, which the op computes element by element from `input`
  /// alone, to `input`'s buffer when the op may overwrite it (its storage
  /// is a Temp that no value read after the op lives in); otherwise as
  /// defineResult does.
  mlir::FailureOr<int32_t> defineInPlace(mlir::Value result, mlir::Value input, SymShape dims);
  /// The result of an element-wise kernel (unary, binary) whose element i
  /// reads element i of `input`: with enable_inplace (LoweringOptions::
  /// inplace) defineInPlace over `input` unless another operand shares its
  /// storage, else defineResult.
  mlir::FailureOr<int32_t> defineElementwiseResult(mlir::Value result, mlir::Value input,
                                                   SymShape dims);
  /// The buffer that owns `buffer`'s storage (views followed).
  int32_t storageRootOf(int32_t buffer) const;
  /// True when `root` is a Temp and no value living in it is read after `op`.
  bool storageFreeAfter(int32_t root, mlir::Operation *op) const;
  /// A view with `dims` starting `offset` elements into `base`.
  int32_t sliceView(int32_t base, int64_t offset, SymShape dims, std::string name);

  mlir::FailureOr<mlir::Value> forwardInputOfXShape(mlir::Operation *op);
  /// False for a result nothing uses: a gradient nobody asked for.
  bool isNeeded(mlir::Value result) const;
  /// A Temp buffer with `like`'s dtype.
  int32_t temp(const std::string &name, int32_t like, SymShape dims);
  mlir::LogicalResult emitReduceTo(int32_t grad, const SymShape &full, const SymShape &aligned,
                                   const SymShape &own, mlir::Value result);

  // --- structural ops (LowerToArtifact.cpp) ------------------------------
  mlir::LogicalResult lowerFeed(mlir::Operation *op);
  mlir::LogicalResult lowerFetch(mlir::Operation *op);
  mlir::LogicalResult lowerReadVar(mlir::Operation *op);
  mlir::LogicalResult lowerWriteVar(mlir::Operation *op);

private:
  /// Lowers `op` with the lowering its PdOps.td definition declares.
  mlir::LogicalResult lowerOp(mlir::Operation *op);

  ArtifactState &state;
  artifact::ProgramDesc &program;
  llvm::DenseMap<mlir::Value, int32_t> buffers;
  /// The values bound to each storage root (storageRootOf of their buffer
  /// when bound; a root that becomes a view of a fused bucket hands its
  /// values on to the bucket), so that storageFreeAfter looks at those only.
  llvm::DenseMap<int32_t, llvm::SmallVector<mlir::Value, 2>> valuesByRoot;
  /// Row-sparse values: their parts (LowerSelectedRows.cpp).
  llvm::DenseMap<mlir::Value, std::vector<RowsPart>> rowParts;
  /// fused_attention's q, k, v and scaled q (temporaries), by the op's
  /// TransposeOut2: its gradient reads these instead of slicing and
  /// scaling again, so TransposeOut2 dies with the forward as the unfused
  /// program's transpose2 output does (LowerAttention.cpp).
  llvm::DenseMap<mlir::Value, std::array<int32_t, 4>> attentionHeads;
  /// c_gen_nccl_id's communicator ids: values bound to no buffer.
  llvm::DenseSet<mlir::Value> communicatorIds;
  std::string origin;     // the op being lowered, for KernelCallDesc::origin
  int32_t ownerRank = -1; // its owner_rank (Reduce strategy), for KernelCallDesc::rank
};

/// Maps an MLIR element type to the artifact's dtype.
mlir::FailureOr<artifact::DType> toArtifactDType(mlir::Type elementType);

/// Normalizes a possibly negative axis against `rank`; nullopt if invalid.
std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank);

} // namespace distc::target

#endif // DISTC_LIB_TARGET_PROGRAMLOWERING_H
