//===- LowerSelectedRows.cpp - Row-sparse values (Paddle's SelectedRows) --===//
//
// A value of type `tensor<HxDxT, #pd.selected_rows>` holds some rows of an
// H x D tensor, the others zero: a parameter-server trainer's sparse
// embedding gradient, the blocks of it sent to the servers, and the
// servers' sums of them. It lowers to a list of parts, each a pair of
// buffers: Int64 row ids [n] (-1: unused entry) and their values [n, D];
// duplicated ids add up. No op copies rows it need not:
//
//   lookup_table_v2_grad (is_sparse) -> lookup_rows: the ids become the row
//                         ids; the values are a view of Out@GRAD's rows
//   sum                -> the operands' parts, side by side (no call)
//   scale              -> scale over each part's values; the ids stay
//   split_selected_rows -> merge_rows: one part per block, duplicates
//                         merged, ids renumbered from the block's first row
//   split_ids of a row-sparse gradient (a distributed table's) -> as
//                         split_selected_rows
//   send               -> ps_send_rows of each block (merge_rows first when
//                         the value is not one merged part)
//   sgd                -> sgd_rows: only the rows the gradient holds change
//   read_var of a row-sparse server variable -> its values buffer and the
//                         persistent Int64 `<name>@ROWS` beside it
//
// Any other op that reads a row-sparse value reads its dense form, made
// once by rows_to_dense (an optimizer applying a sparse gradient block:
// rows it does not hold get a zero gradient, as Paddle's non-lazy sparse
// updates do).
//
//===----------------------------------------------------------------------===//

#include "ProgramLowering.h"

#include "distc/Dialect/Pd/PdDialect.h"

using namespace mlir;

namespace distc::target {
namespace {

StringRef opType(Operation *op) { return op->getName().getStringRef().drop_front(3); }

/// The dims of one row of `type` (all but dim 0), static.
SymShape rowDims(RankedTensorType type) {
  SymShape dims;
  for (int64_t d : type.getShape().drop_front())
    dims.push_back(DimDesc::fixed(d));
  return dims;
}

} // namespace

bool ProgramLowering::takesRowSparse(Operation *op) {
  StringRef type = opType(op);
  return type == "sum" || type == "scale" || type == "split_selected_rows" || type == "send" ||
         type == "sgd" || type == "split_ids";
}

void ProgramLowering::bindRows(Value value, std::vector<RowsPart> parts) {
  // The parts live in their buffers' storage until the value's last use,
  // which in-place updates of that storage must respect.
  for (const RowsPart &part : parts) {
    valuesByRoot[storageRootOf(part.rows)].push_back(value);
    valuesByRoot[storageRootOf(part.values)].push_back(value);
  }
  rowParts[value] = std::move(parts);
}

std::vector<int32_t> ProgramLowering::partBuffers(Value value) const {
  std::vector<int32_t> buffers;
  for (const RowsPart &part : rowParts.lookup(value)) {
    buffers.push_back(part.rows);
    buffers.push_back(part.values);
  }
  return buffers;
}

LogicalResult ProgramLowering::densifyOperands(Operation *op) {
  for (Value operand : op->getOperands()) {
    if (!isRowSparse(operand) || buffers.count(operand))
      continue;
    auto type = cast<RankedTensorType>(operand.getType());
    if (type.getRank() < 1 || !type.hasStaticShape())
      return error(op) << "row-sparse operand '" << nameOf(operand) << "' needs a static shape";
    SymShape dims{DimDesc::fixed(type.getDimSize(0))};
    for (const DimDesc &d : rowDims(type))
      dims.push_back(d);
    int32_t dense = temp(nameOf(operand), rowParts.lookup(operand).front().values, dims);
    emit("rows_to_dense", partBuffers(operand), {dense});
    bind(operand, dense);
  }
  return success();
}

int32_t ProgramLowering::rowsBuffer(std::string name, SymShape dims) {
  return addBuffer(std::move(name), artifact::DType::Int64, std::move(dims), BufferKind::Temp);
}

LogicalResult ProgramLowering::lowerSparseLookupGrad(Operation *op) {
  Value ids = op->getOperand(0), dout = op->getOperand(2), result = op->getResult(0);
  auto table = cast<RankedTensorType>(result.getType());
  if (table.getRank() != 2 || !table.hasStaticShape())
    return error(op) << "a sparse table gradient must be a static 2-D tensor, got " << table;
  std::optional<DimDesc> count = product(dimsOf(ids));
  if (!count)
    return error(op) << "cannot count the ids " << describe(dimsOf(ids));
  int32_t rows = rowsBuffer(nameOf(result) + "@ROWS", {*count});
  emit("lookup_rows", {bufferOf(ids)}, {rows},
       {AttrDesc::ofInt("padding_idx", pd::OpAttributes(op).getInt("padding_idx")),
        AttrDesc::ofInt("height", table.getDimSize(0))});
  int32_t values = view(bufferOf(dout), {*count, DimDesc::fixed(table.getDimSize(1))});
  bindRows(result, {{rows, values, /*merged=*/false}});
  return success();
}

LogicalResult ProgramLowering::lowerSparseSum(Operation *op) {
  std::vector<RowsPart> parts;
  for (Value operand : op->getOperands())
    for (const RowsPart &part : rowParts.lookup(operand))
      parts.push_back({part.rows, part.values, /*merged=*/false});
  bindRows(op->getResult(0), std::move(parts));
  return success();
}

LogicalResult ProgramLowering::lowerSparseScale(Operation *op) {
  pd::OpAttributes attrs(op);
  std::vector<RowsPart> parts;
  for (const RowsPart &part : rowParts.lookup(op->getOperand(0))) {
    int32_t values = temp(nameOf(op->getResult(0)), part.values, dimsOf(part.values));
    emit("scale", {part.values}, {values},
         {AttrDesc::ofFloat("scale", attrs.getFloat("scale")),
          AttrDesc::ofFloat("bias", attrs.getFloat("bias")),
          AttrDesc::ofInt("bias_after_scale", attrs.getBool("bias_after_scale"))});
    parts.push_back({part.rows, values, part.merged});
  }
  bindRows(op->getResult(0), std::move(parts));
  return success();
}

std::vector<ProgramLowering::RowsPart>
ProgramLowering::emitMergeRows(Value input, ArrayRef<int64_t> heights,
                               ArrayRef<std::string> names) {
  auto type = cast<RankedTensorType>(input.getType());
  const int32_t like = rowParts.lookup(input).front().values;
  std::vector<RowsPart> blocks;
  std::vector<int32_t> outputs;
  for (auto [height, name] : llvm::zip_equal(heights, names)) {
    SymShape dims{DimDesc::fixed(height)};
    for (const DimDesc &d : rowDims(type))
      dims.push_back(d);
    RowsPart block{rowsBuffer(name + "@ROWS", {DimDesc::fixed(height)}), temp(name, like, dims),
                   /*merged=*/true};
    outputs.push_back(block.rows);
    outputs.push_back(block.values);
    blocks.push_back(block);
  }
  emit("merge_rows", partBuffers(input), outputs,
       {AttrDesc::ofInts("height_sections", std::vector<int64_t>(heights.begin(), heights.end()))});
  return blocks;
}

LogicalResult ProgramLowering::lowerSplitSelectedRows(Operation *op) {
  Value x = op->getOperand(0);
  if (!isRowSparse(x))
    return error(op) << "input '" << nameOf(x) << "' is not row-sparse";
  std::vector<int64_t> heights = pd::OpAttributes(op).getInts("height_sections");
  if (heights.size() != op->getNumResults())
    return error(op) << "has " << op->getNumResults() << " outputs for " << heights.size()
                     << " height sections";
  std::vector<std::string> names;
  for (Value result : op->getResults())
    names.push_back(nameOf(result));
  std::vector<RowsPart> blocks = emitMergeRows(x, heights, names);
  for (auto [result, block] : llvm::zip_equal(op->getResults(), blocks))
    bindRows(result, {block});
  return success();
}

FailureOr<std::vector<int32_t>> ProgramLowering::mergedRowsOf(Value value) {
  const std::vector<RowsPart> &parts = rowParts.lookup(value);
  if (parts.size() == 1 && parts.front().merged)
    return std::vector<int32_t>{parts.front().rows, parts.front().values};
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getRank() < 1 || !type.hasStaticShape())
    return failure();
  std::vector<RowsPart> merged =
      emitMergeRows(value, {type.getDimSize(0)}, {nameOf(value) + "@MERGED"});
  return std::vector<int32_t>{merged.front().rows, merged.front().values};
}

LogicalResult ProgramLowering::lowerSplitIds(Operation *op) {
  Value ids = op->getOperand(0);
  if (isRowSparse(ids))
    return lowerSplitSelectedRows(op);
  if (failed(densifyOperands(op)))
    return failure();
  pd::OpAttributes attrs(op);
  std::vector<int32_t> shards;
  for (Value result : op->getResults()) {
    auto type = cast<RankedTensorType>(result.getType());
    FailureOr<int32_t> shard = defineResult(result, {DimDesc::fixed(type.getDimSize(0))});
    if (failed(shard))
      return failure();
    shards.push_back(*shard);
  }
  emit("split_ids", {bufferOf(ids)}, shards,
       {AttrDesc::ofInts("height_sections", attrs.getInts("height_sections")),
        AttrDesc::ofInt("padding_idx", attrs.getInt("padding_idx"))});
  return success();
}

LogicalResult ProgramLowering::lowerMergeIds(Operation *op) {
  auto segments = op->getAttrOfType<DenseI32ArrayAttr>("operandSegmentSizes");
  if (!segments || segments.size() != 3 || segments[1] != segments[2])
    return error(op) << "needs one row block per id list";
  pd::OpAttributes attrs(op);
  Value ids = op->getOperand(0);
  std::vector<int32_t> inputs{bufferOf(ids)};
  for (int32_t i = 0; i < segments[1]; ++i) {
    inputs.push_back(bufferOf(op->getOperand(1 + i)));
    inputs.push_back(bufferOf(op->getOperand(1 + segments[1] + i)));
  }
  SymShape dims = dimsOf(ids);
  dims.push_back(DimDesc::fixed(cast<RankedTensorType>(op->getResult(0).getType()).getShape().back()));
  FailureOr<int32_t> out = defineResult(op->getResult(0), dims);
  if (failed(out))
    return failure();
  emit("merge_ids", inputs, {*out},
       {AttrDesc::ofInts("height_sections", attrs.getInts("height_sections")),
        AttrDesc::ofInt("padding_idx", attrs.getInt("padding_idx"))});
  return success();
}

LogicalResult ProgramLowering::lowerSparseSgd(Operation *op) {
  // Param, LearningRate, Grad; the rows the gradient does not hold keep
  // their values, so ParamOut starts as Param.
  Value param = op->getOperand(0);
  FailureOr<int32_t> out =
      defineResult(op->getResult(0), dimsOf(param), /*elementwiseInPlace=*/true);
  if (failed(out))
    return failure();
  if (*out != bufferOf(param))
    emit("copy", {bufferOf(param)}, {*out});
  std::vector<int32_t> inputs{*out, bufferOf(op->getOperand(1))};
  for (int32_t b : partBuffers(op->getOperand(2)))
    inputs.push_back(b);
  emit("sgd_rows", inputs, {*out});
  return success();
}

} // namespace distc::target
