//===- Conversions.cpp - Paddle attributes and types <-> MLIR -------------===//

#include "distc/Import/Conversions.h"

#include "distc/Dialect/Pd/PdDialect.h"
#include "distc/Dialect/Pd/PdTypes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <cstdlib>
#include <limits>

using namespace mlir;
using distc::pd::AttrKind;

namespace distc::importer {
namespace {

using PAttr = proto::OpDesc::Attr;

bool fitsInt32(int64_t v) {
  return v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max();
}

/// A Paddle attribute read as one number, whatever numeric form it came in.
struct Number {
  bool isInteger = false;
  int64_t i = 0;
  double f = 0;
};

std::optional<Number> scalarNumber(const PAttr &attr) {
  Number n;
  switch (attr.type()) {
  case proto::INT:
    n.isInteger = true;
    n.i = attr.i();
    break;
  case proto::LONG:
    n.isInteger = true;
    n.i = attr.l();
    break;
  case proto::FLOAT:
    n.f = attr.f();
    break;
  case proto::FLOAT64:
    n.f = attr.float64();
    break;
  case proto::SCALAR: {
    // Paddle 3.x stores some numeric attributes as Scalar.
    const proto::Scalar &s = attr.scalar();
    if (s.type() == proto::Scalar::LONG) {
      n.isInteger = true;
      n.i = s.i();
    } else if (s.type() == proto::Scalar::FLOAT64) {
      n.f = s.r();
    } else {
      return std::nullopt;
    }
    break;
  }
  default:
    return std::nullopt;
  }
  if (n.isInteger)
    n.f = static_cast<double>(n.i);
  return n;
}

/// A list attribute read as numbers (INTS, LONGS, FLOATS, FLOAT64S).
std::optional<SmallVector<Number>> listNumbers(const PAttr &attr) {
  SmallVector<Number> out;
  auto addInt = [&](int64_t v) {
    Number n;
    n.isInteger = true;
    n.i = v;
    n.f = static_cast<double>(v);
    out.push_back(n);
  };
  auto addFloat = [&](double v) {
    Number n;
    n.f = v;
    out.push_back(n);
  };
  switch (attr.type()) {
  case proto::INTS:
    for (int32_t v : attr.ints())
      addInt(v);
    return out;
  case proto::LONGS:
    for (int64_t v : attr.longs())
      addInt(v);
    return out;
  case proto::FLOATS:
    for (float v : attr.floats())
      addFloat(v);
    return out;
  case proto::FLOAT64S:
    for (double v : attr.float64s())
      addFloat(v);
    return out;
  default:
    return std::nullopt;
  }
}

std::string kindName(AttrKind kind) { return attrTypeName(static_cast<int>(kind)); }

Attribute mismatch(const PAttr &attr, AttrKind kind, std::string &error) {
  error = "has type " + attrTypeName(attr.type()) + ", expected " + kindName(kind);
  return {};
}

} // namespace

std::string attrTypeName(int type) {
  if (proto::AttrType_IsValid(type))
    return proto::AttrType_Name(static_cast<proto::AttrType>(type));
  return "type " + std::to_string(type);
}

Attribute importAttrAsKind(MLIRContext *ctx, const PAttr &attr, AttrKind kind, std::string &error) {
  Builder b(ctx);
  switch (kind) {
  case AttrKind::Int:
  case AttrKind::Long: {
    auto n = scalarNumber(attr);
    if (!n || !n->isInteger)
      return mismatch(attr, kind, error);
    if (kind == AttrKind::Int) {
      if (!fitsInt32(n->i)) {
        error = "value " + std::to_string(n->i) + " does not fit in INT";
        return {};
      }
      return b.getI32IntegerAttr(static_cast<int32_t>(n->i));
    }
    return b.getI64IntegerAttr(n->i);
  }
  case AttrKind::Float:
  case AttrKind::Float64: {
    auto n = scalarNumber(attr);
    if (!n)
      return mismatch(attr, kind, error);
    if (kind == AttrKind::Float)
      return b.getF32FloatAttr(static_cast<float>(n->f));
    return b.getF64FloatAttr(n->f);
  }
  case AttrKind::Boolean:
    if (attr.type() == proto::BOOLEAN)
      return b.getBoolAttr(attr.b());
    if (attr.type() == proto::SCALAR && attr.scalar().type() == proto::Scalar::BOOLEAN)
      return b.getBoolAttr(attr.scalar().b());
    return mismatch(attr, kind, error);
  case AttrKind::String:
    if (attr.type() != proto::STRING)
      return mismatch(attr, kind, error);
    return b.getStringAttr(attr.s());
  case AttrKind::Ints:
  case AttrKind::Longs:
  case AttrKind::Floats:
  case AttrKind::Float64s: {
    auto list = listNumbers(attr);
    bool intTarget = kind == AttrKind::Ints || kind == AttrKind::Longs;
    if (!list || (intTarget && llvm::any_of(*list, [](const Number &n) { return !n.isInteger; })))
      return mismatch(attr, kind, error);
    if (kind == AttrKind::Ints) {
      SmallVector<int32_t> values;
      for (const Number &n : *list) {
        if (!fitsInt32(n.i)) {
          error = "element " + std::to_string(n.i) + " does not fit in INTS";
          return {};
        }
        values.push_back(static_cast<int32_t>(n.i));
      }
      return b.getDenseI32ArrayAttr(values);
    }
    if (kind == AttrKind::Longs)
      return b.getDenseI64ArrayAttr(
          llvm::to_vector(llvm::map_range(*list, [](const Number &n) { return n.i; })));
    if (kind == AttrKind::Floats)
      return b.getDenseF32ArrayAttr(llvm::to_vector(
          llvm::map_range(*list, [](const Number &n) { return static_cast<float>(n.f); })));
    return b.getDenseF64ArrayAttr(
        llvm::to_vector(llvm::map_range(*list, [](const Number &n) { return n.f; })));
  }
  case AttrKind::Booleans:
    if (attr.type() != proto::BOOLEANS)
      return mismatch(attr, kind, error);
    return b.getDenseBoolArrayAttr(llvm::to_vector(attr.bools()));
  case AttrKind::Strings: {
    if (attr.type() != proto::STRINGS)
      return mismatch(attr, kind, error);
    SmallVector<Attribute> strings;
    for (const std::string &s : attr.strings())
      strings.push_back(b.getStringAttr(s));
    return b.getArrayAttr(strings);
  }
  }
  error = "unknown attribute kind";
  return {};
}

Attribute importAttrGeneric(MLIRContext *ctx, const PAttr &attr, std::string &error) {
  switch (attr.type()) {
  case proto::INT:
  case proto::FLOAT:
  case proto::STRING:
  case proto::INTS:
  case proto::FLOATS:
  case proto::STRINGS:
  case proto::BOOLEAN:
  case proto::BOOLEANS:
  case proto::LONG:
  case proto::LONGS:
  case proto::FLOAT64S:
  case proto::FLOAT64:
    return importAttrAsKind(ctx, attr, static_cast<AttrKind>(attr.type()), error);
  case proto::SCALAR:
    // Kept as the plain number (Paddle's legacy form of the same value).
    switch (attr.scalar().type()) {
    case proto::Scalar::BOOLEAN:
      return BoolAttr::get(ctx, attr.scalar().b());
    case proto::Scalar::LONG:
      return Builder(ctx).getI64IntegerAttr(attr.scalar().i());
    case proto::Scalar::FLOAT64:
      return Builder(ctx).getF64FloatAttr(attr.scalar().r());
    default:
      error = "is a complex SCALAR, which is not supported";
      return {};
    }
  case proto::BLOCK:
  case proto::BLOCKS:
    error = "refers to a sub-block (type " + attrTypeName(attr.type()) +
            "); only single-block programs are supported";
    return {};
  default:
    error = "has type " + attrTypeName(attr.type()) + ", which is not supported";
    return {};
  }
}

std::optional<AttrKind> genericKindOf(Attribute value) {
  if (isa<BoolAttr>(value))
    return AttrKind::Boolean;
  if (auto i = dyn_cast<IntegerAttr>(value)) {
    if (i.getType().isSignlessInteger(32))
      return AttrKind::Int;
    if (i.getType().isSignlessInteger(64))
      return AttrKind::Long;
    return std::nullopt;
  }
  if (auto f = dyn_cast<FloatAttr>(value)) {
    if (f.getType().isF32())
      return AttrKind::Float;
    if (f.getType().isF64())
      return AttrKind::Float64;
    return std::nullopt;
  }
  if (isa<StringAttr>(value))
    return AttrKind::String;
  if (isa<DenseI32ArrayAttr>(value))
    return AttrKind::Ints;
  if (isa<DenseI64ArrayAttr>(value))
    return AttrKind::Longs;
  if (isa<DenseF32ArrayAttr>(value))
    return AttrKind::Floats;
  if (isa<DenseF64ArrayAttr>(value))
    return AttrKind::Float64s;
  if (isa<DenseBoolArrayAttr>(value))
    return AttrKind::Booleans;
  if (auto array = dyn_cast<ArrayAttr>(value))
    if (llvm::all_of(array, [](Attribute a) { return isa<StringAttr>(a); }))
      return AttrKind::Strings;
  return std::nullopt;
}

bool exportAttr(Attribute value, AttrKind kind, PAttr &out, std::string &error) {
  out.set_type(static_cast<proto::AttrType>(static_cast<int>(kind)));
  auto fail = [&] {
    std::string shown;
    llvm::raw_string_ostream os(shown);
    value.print(os);
    error = "value " + shown + " is not a " + kindName(kind);
    return false;
  };
  switch (kind) {
  case AttrKind::Int:
  case AttrKind::Long: {
    auto i = dyn_cast<IntegerAttr>(value);
    if (!i || isa<BoolAttr>(value))
      return fail();
    int64_t v = i.getValue().getSExtValue();
    if (kind == AttrKind::Int) {
      if (!fitsInt32(v))
        return fail();
      out.set_i(static_cast<int32_t>(v));
    } else {
      out.set_l(v);
    }
    return true;
  }
  case AttrKind::Float:
  case AttrKind::Float64: {
    auto f = dyn_cast<FloatAttr>(value);
    if (!f)
      return fail();
    if (kind == AttrKind::Float)
      out.set_f(static_cast<float>(f.getValueAsDouble()));
    else
      out.set_float64(f.getValueAsDouble());
    return true;
  }
  case AttrKind::Boolean: {
    auto b = dyn_cast<BoolAttr>(value);
    if (!b)
      return fail();
    out.set_b(b.getValue());
    return true;
  }
  case AttrKind::String: {
    auto s = dyn_cast<StringAttr>(value);
    if (!s)
      return fail();
    out.set_s(s.str());
    return true;
  }
  case AttrKind::Ints: {
    auto a = dyn_cast<DenseI32ArrayAttr>(value);
    if (!a)
      return fail();
    for (int32_t v : a.asArrayRef())
      out.add_ints(v);
    return true;
  }
  case AttrKind::Longs: {
    auto a = dyn_cast<DenseI64ArrayAttr>(value);
    if (!a)
      return fail();
    for (int64_t v : a.asArrayRef())
      out.add_longs(v);
    return true;
  }
  case AttrKind::Floats: {
    auto a = dyn_cast<DenseF32ArrayAttr>(value);
    if (!a)
      return fail();
    for (float v : a.asArrayRef())
      out.add_floats(v);
    return true;
  }
  case AttrKind::Float64s: {
    auto a = dyn_cast<DenseF64ArrayAttr>(value);
    if (!a)
      return fail();
    for (double v : a.asArrayRef())
      out.add_float64s(v);
    return true;
  }
  case AttrKind::Booleans: {
    auto a = dyn_cast<DenseBoolArrayAttr>(value);
    if (!a)
      return fail();
    for (bool v : a.asArrayRef())
      out.add_bools(v);
    return true;
  }
  case AttrKind::Strings: {
    auto a = dyn_cast<ArrayAttr>(value);
    if (!a)
      return fail();
    for (Attribute element : a) {
      auto s = dyn_cast<StringAttr>(element);
      if (!s)
        return fail();
      out.add_strings(s.str());
    }
    return true;
  }
  }
  return fail();
}

RankedTensorType importVarType(MLIRContext *ctx, const proto::VarDesc &var, std::string &error) {
  const proto::VarType &type = var.type();
  const bool selectedRows = type.type() == proto::VarType::SELECTED_ROWS;
  if (type.type() != proto::VarType::LOD_TENSOR && !selectedRows) {
    error = "has type " + proto::VarType::Type_Name(type.type()) +
            "; only LOD_TENSOR (DENSE_TENSOR) and SELECTED_ROWS variables are supported";
    return {};
  }
  if (selectedRows ? !type.has_selected_rows() : !type.has_lod_tensor()) {
    error = selectedRows
                ? "is SELECTED_ROWS without its tensor description (selected_rows)"
                : "is a LOD_TENSOR without its tensor description (lod_tensor.tensor)";
    return {};
  }
  const proto::VarType::TensorDesc &tensor =
      selectedRows ? type.selected_rows() : type.lod_tensor().tensor();
  auto element = pd::convertPaddleDType(ctx, tensor.data_type());
  if (failed(element)) {
    error = "has data type " + proto::VarType::Type_Name(tensor.data_type()) +
            ", which is not supported";
    return {};
  }
  SmallVector<int64_t> shape;
  for (int64_t d : tensor.dims()) {
    if (d < -1) {
      error = "has invalid dimension " + std::to_string(d);
      return {};
    }
    shape.push_back(d == -1 ? ShapedType::kDynamic : d);
  }
  return pd::withSelectedRows(RankedTensorType::get(shape, *element), selectedRows);
}

bool exportVarType(Type type, proto::VarType &out, std::string &error) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor) {
    error = "is not a ranked tensor";
    return false;
  }
  auto dtype = pd::getPaddleDType(tensor.getElementType());
  if (failed(dtype)) {
    std::string shown;
    llvm::raw_string_ostream os(shown);
    tensor.getElementType().print(os);
    error = "has element type " + shown + ", which Paddle has no data type for";
    return false;
  }
  // A row-sparse value is Paddle's SELECTED_ROWS variable, whose tensor
  // description has the whole table's dims.
  proto::VarType::TensorDesc *desc;
  if (pd::isSelectedRows(tensor)) {
    out.set_type(proto::VarType::SELECTED_ROWS);
    desc = out.mutable_selected_rows();
  } else {
    out.set_type(proto::VarType::LOD_TENSOR);
    desc = out.mutable_lod_tensor()->mutable_tensor();
  }
  desc->set_data_type(static_cast<proto::VarType::Type>(static_cast<int>(*dtype)));
  for (int64_t d : tensor.getShape())
    desc->add_dims(ShapedType::isDynamic(d) ? -1 : d);
  return true;
}

std::string describeTensorType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  std::string out;
  llvm::raw_string_ostream os(out);
  if (!tensor) {
    type.print(os);
    return out;
  }
  os << "[";
  llvm::interleave(
      tensor.getShape(), os, [&](int64_t d) { os << (ShapedType::isDynamic(d) ? -1 : d); }, ", ");
  os << "] ";
  auto dtype = pd::getPaddleDType(tensor.getElementType());
  if (succeeded(dtype))
    os << pd::paddleDTypeName(static_cast<int64_t>(*dtype));
  else
    tensor.getElementType().print(os);
  return out;
}

} // namespace distc::importer
