//===- PdDialect.td - PaddlePaddle program dialect --------*- tablegen -*-===//
//
// The `pd` dialect models a PaddlePaddle static-graph program: one op per
// Paddle operator (same type names, slots and attributes, see OpCatalog.h),
// plus the structural ops that make a ProgramDesc an SSA module (programs,
// persistable variables, their reads and writes, feeds and fetches).
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_DIALECT_PD_PDDIALECT_TD
#define DISTC_DIALECT_PD_PDDIALECT_TD

include "mlir/IR/OpBase.td"

def Pd_Dialect : Dialect {
  let name = "pd";
  let cppNamespace = "::distc::pd";
  let summary = "PaddlePaddle static-graph programs as SSA on tensors";
  let description = [{
    A module holds `pd.var` declarations of persistable variables and one
    `pd.program` per program (`@main`, optionally `@startup`). Each Paddle
    operator is `pd.<type>`: operand i is catalog input slot i, result i is
    catalog output slot i, inherent attributes are the operator's Paddle
    attributes. See docs/dialect.md.
  }];
  // Verifies the dialect's own discardable attributes (`pd.out_names`,
  // `pd.shardings`, `pd.sharding`).
  let hasOperationAttrVerify = 1;
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
  }];
}

// Every pd op. Besides ODS's own fields, an op declares here what the rest
// of the compiler needs to know about it; distc-tblgen generates each
// per-op table from these fields (docs/adding-an-op.md), so an op is
// declared in one place.
class Pd_Op<string mnemonic, list<Trait> traits = []>
    : Op<Pd_Dialect, mnemonic, traits> {
  // Its lowering to runtime kernels: an expression calling a member of
  // ProgramLowering (lib/compiler/Target) on `op`, e.g. `lowerUnary(op, "relu")`.
  // Required for catalog ops.
  code lowering = "";

  // --- Paddle catalog facts (OpCatalog.h), for ops Paddle programs hold.
  bit inCatalog = 0;
  // Paddle slots that differ from the ODS operands/results (feed and
  // fetch, whose feed/fetch-list variable is implicit in the IR).
  list<string> paddleInputs = [];
  list<string> paddleOutputs = [];
  // Variadic input slots a Paddle program may leave empty (recv's control
  // dependences); other variadic slots need at least one tensor.
  list<string> optionalInputs = [];
  // Output slots a Paddle program may leave out (every one is a result).
  list<string> optionalOutputs = [];
  bit allOutputsOptional = 0;
  // Input slots Paddle defines that distc does not support, so the
  // importer can name them instead of calling the op unknown.
  list<string> unsupportedInputs = [];
  // Input slots that stand for attributes: "SLOT=attr", or
  // "SLOT=attr1,attr2" for a slot whose elements are several attributes
  // (interp's OutSize = [out_h, out_w]). A slot whose variables hold values
  // known when the program is imported (fill_constant, shape of a static
  // tensor, assign and cast of those) is folded into the attributes; one
  // computed at run time is refused, naming the slot and the variable.
  // A trailing "|-1" ("ShapeTensor=shape|-1") lets one element computed at
  // run time (the batch size, from `shape` of the input) stand as -1, for
  // an attribute where -1 means "inferred" (reshape2's shape).
  list<string> foldedInputs = [];
  // Startup-program initializers of parameter values.
  bit isInitializer = 0;
  // Shape and dtype inference: a rule of Inference/*Rules.cpp (InferContext.h).
  string inferRule = "";
  // The gradient: either the catalog op Paddle's append_backward emits for
  // it (`gradOp`, its slots matched by name: X, Out, Out@GRAD -> X@GRAD), or
  // a member of AppendBackward's BackwardBuilder that writes the gradient
  // with forward ops (`gradRule`). Neither: no gradient flows through it.
  string gradOp = "";
  string gradRule = "";

  // --- Its instruction in a generated element-wise loop (the fusion passes,
  // distc/Artifact/ElementwiseLoop.h): the opcode that computes its one
  // result; the operands (ODS names) that are the instruction's registers,
  // by default all of them in order; the attributes that are its
  // immediates; and a variant "attr:opcode" taken when the Bool attribute
  // attr is true (gelu's approximate). No loopOp: it never joins a loop.
  string loopOp = "";
  list<string> loopOperands = [];
  list<string> loopImmediates = [];
  string loopVariant = "";

  // --- Its SPMD sharding rule (lib/compiler/Sharding, docs/sharding.md):
  // the Paddle rule name (`matmul`, `add`, `layer_norm`, ...) that decides
  // how shardings flow through the op, and the rule's attributes that the
  // op spells differently, as `ruleAttr:opAttr` (matmul v1's
  // `trans_x:transpose_X`).
  string spmdRule = "";
  list<string> spmdAttrs = [];

  // --- The op's Paddle 3 PIR form (`pd_op.<pirName>` in PIR JSON programs,
  // read by lib/compiler/Import/PirImporter.cpp). The defaults fit an op
  // whose PIR op has its Paddle type as name, its input slots as operands and
  // its output slots as results in ODS order, and attributes of the same
  // names; an op declares only what differs (docs/adding-an-op.md).
  bit hasPirForm = 1;
  // The PIR op name without the `pd_op.` dialect; "" means the Paddle type.
  string pirName = "";
  // The PIR operands in order, each an input slot name, `attr:NAME` for an
  // operand that carries the attribute NAME (Paddle's mutable attributes:
  // a constant from pd_op.full / pd_op.full_int_array), or `-` for an
  // optional operand distc does not take (it must be absent). Default: the
  // input slots in order.
  list<string> pirOperands = [];
  // The PIR results in order, each an output slot name. Default: the output
  // slots in order.
  list<string> pirResults = [];
  // PIR attribute names that differ, as `pirName:paddleName`.
  list<string> pirAttrs = [];
  // Attributes PIR leaves out that are the data type of an input, as
  // `attr:slot` (cast's `in_dtype:X`).
  list<string> pirDtypeAttrs = [];
}

// A further PIR op that is catalog op `op` with other operands or attribute
// names (`pd_op.split_with_num` is `split` with `num`); its fields mean what
// the PIR fields of Pd_Op mean, with the op's slots as defaults.
class Pd_PirForm<string name, Pd_Op catalogOp> {
  string pirName = name;
  Pd_Op op = catalogOp;
  list<string> pirOperands = [];
  list<string> pirResults = [];
  list<string> pirAttrs = [];
  list<string> pirDtypeAttrs = [];
}

#endif // DISTC_DIALECT_PD_PDDIALECT_TD
