//===- PdPsOps.td - Parameter-server ops -------------------*- tablegen -*-===//
//
// The ops of DistributeTranspiler's pserver mode (docs/parameter-server.md).
// A trainer program sends each gradient block to the server that holds it
// (`send`, after `split_byref` cuts a gradient into blocks), tells every
// server its batch is complete (`send_barrier`), receives the updated
// parameter blocks (`recv`), tells every server it has them
// (`fetch_barrier`) and puts blocks back together (`concat`). A server
// program is one `listen_and_serv` whose regions are the optimize blocks.
//
// Paddle orders these ops through dummy "control dependence" variables:
// send's and send_barrier's Out, which recv's X names. In SSA those are
// values (controlDependenceType, tensor<0xf32>), so the order is a data
// dependence every pass keeps. fetch_barrier passes the received blocks
// through (Paddle writes its Out over recv's outputs), so the parameters
// are read after the barrier. None of these ops is Pure: every trainer and
// server must issue them as the transpiler placed them.
//
// Included at the end of PdOps.td; the fields are those of Pd_Op
// (PdDialect.td, docs/adding-an-op.md).
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_DIALECT_PD_PDPSOPS_TD
#define DISTC_DIALECT_PD_PDPSOPS_TD

class Pd_PsOp<string mnemonic, string what, list<Trait> traits = []>
    : Pd_CatalogOp<mnemonic, traits> {
  let hasPirForm = 0; // transpiled parameter-server programs only
  let summary = what;
  let lowering = [{ lowerParameterServerOp(op) }];
  let spmdRule = "parameter_server";
}

def Pd_SendOp : Pd_PsOp<"send", "Sends X[i] to the server at `epmap[i]`"> {
  let arguments = (ins Variadic<PdTensor>:$X, PdInt<"0">:$trainer_id,
                       PdStrings<"[]">:$epmap, PdLongs<"[]">:$sections,
                       PdStrings<"[]">:$send_varnames, PdInt<"0">:$num);
  let results = (outs Variadic<PdTensor>:$Out);
  let inferRule = "inferSend";
}

def Pd_SendBarrierOp
    : Pd_PsOp<"send_barrier", "Tells every server in `endpoints` this trainer's batch is sent"> {
  let arguments = (ins Variadic<PdTensor>:$X, PdInt<"0">:$trainer_id,
                       PdStrings<"[]">:$endpoints,
                       PdBool<"false">:$half_async);
  let results = (outs Variadic<PdTensor>:$Out);
  let optionalInputs = ["X"]; // a trainer with no gradient to send still barriers
  let inferRule = "inferSend";
}

def Pd_RecvOp : Pd_PsOp<"recv", "Receives Out[i] from the server at `epmap[i]`"> {
  let description = [{
    X are control dependences only (the send_barrier's, or in asynchronous
    training the parameter's own send). The types of Out are what the
    servers hold, which no input determines: the transpiler gives them, and
    the verifier keeps the declared types.
  }];
  let arguments = (ins Variadic<PdTensor>:$X, PdStrings<"[]">:$epmap,
                       PdInt<"0">:$trainer_id, PdInt<"0">:$sync_mode,
                       PdBool<"true">:$with_barrier, PdStrings<"[]">:$varnames,
                       PdStrings<"[]">:$recv_varnames, PdBool<"false">:$do_not_run);
  let results = (outs Variadic<PdTensor>:$Out);
  let optionalInputs = ["X"]; // the startup program's recv depends on nothing
  let inferRule = "inferRecv";
}

def Pd_FetchBarrierOp
    : Pd_PsOp<"fetch_barrier",
              "Tells every server in `endpoints` this trainer has received its parameters"> {
  let description = [{
    Out[i] is X[i]: the received parameter blocks, read after the barrier.
  }];
  let arguments = (ins Variadic<PdTensor>:$X, PdInt<"0">:$trainer_id,
                       PdStrings<"[]">:$endpoints);
  let results = (outs Variadic<PdTensor>:$Out);
  let inferRule = "inferFetchBarrier";
}

def Pd_SplitByrefOp : Pd_PsOp<"split_byref", "X cut along dim 0 into rows of `sections`"> {
  let description = [{
    Paddle's split_byref: the outputs are views of X's rows (a gradient cut
    into the blocks the servers hold), `sections` rows each, or `num` equal
    parts.
  }];
  let arguments = (ins PdTensor:$X, PdInts<"[]">:$sections, PdInt<"0">:$num);
  let results = (outs Variadic<PdTensor>:$Out);
  let inferRule = "inferSplitByref";
  let lowering = [{ lowerSplit(op) }];
}

def Pd_SplitSelectedRowsOp
    : Pd_PsOp<"split_selected_rows",
              "A row-sparse X cut into the row ranges of `height_sections`"> {
  let description = [{
    Paddle's split_selected_rows: X is row-sparse (`#pd.selected_rows`,
    a sparse embedding's gradient) and Out[i] holds the rows of X that fall
    in the i-th range of `height_sections` rows, numbered from the start of
    that range: the blocks of the table the servers hold. Every Out is
    row-sparse with the height of its range.
  }];
  let arguments = (ins PdTensor:$X, PdLongs<"[]">:$height_sections);
  let results = (outs Variadic<PdTensor>:$Out);
  let inferRule = "inferSplitSelectedRows";
  let lowering = [{ lowerSplitSelectedRows(op) }];
}

// --- Distributed lookup tables ----------------------------------------------

def Pd_SplitIdsOp : Pd_PsOp<"split_ids", "Ids cut into the row ranges of `height_sections`"> {
  let description = [{
    Paddle's split_ids, with which the trainer of a distributed lookup
    table (`is_distributed`) sends each server its part of the ids (in the
    forward pass) or of the table's gradient (in the backward pass). For
    integer Ids, Out[i] holds the distinct ids that fall in the i-th range
    of `height_sections` rows, renumbered from its first row, in the order
    they first come, then -1 to its `height_sections[i]` entries
    (`tensor<h_i x i64>`); `padding_idx` (unless -1) is left out. A
    row-sparse Ids (the table's gradient) is cut as split_selected_rows
    cuts it. Paddle assigns id k to server k mod n; distc's table blocks
    are row ranges like every other parameter's.
  }];
  let arguments = (ins PdTensor:$Ids, PdLongs<"[]">:$height_sections, PdLong<"-1">:$padding_idx);
  let results = (outs Variadic<PdTensor>:$Out);
  let inferRule = "inferSplitIds";
  let lowering = [{ lowerSplitIds(op) }];
}

def Pd_PrefetchOp : Pd_PsOp<"prefetch", "Rows of a distributed table for each server's ids"> {
  let description = [{
    Out[i] holds the rows of table `table_names[i]` on the server at
    `epmap[i]` for the ids X[i] (split_ids' output: local row numbers, -1
    past the last), in their order. The row width is the table's, which
    the transpiler gives as Out's types.
  }];
  let arguments = (ins Variadic<PdTensor>:$X, PdStrings<"[]">:$epmap,
                       PdStrings<"[]">:$table_names, PdInt<"0">:$trainer_id);
  let results = (outs Variadic<PdTensor>:$Out);
  let inferRule = "inferPrefetch";
}

def Pd_MergeIdsOp : Pd_PsOp<"merge_ids", "Each id's row, from the servers' prefetched rows",
                            [AttrSizedOperandSegments]> {
  let description = [{
    Paddle's merge_ids: Out has Ids' dims and one row per id, the row the
    server holding it returned (Rows[i] are the ids split_ids sent server
    i, X[i] the rows prefetch received); `padding_idx` (unless -1) gets
    zeros. What a lookup_table_v2 of a distributed table becomes.
  }];
  let arguments = (ins PdTensor:$Ids, Variadic<PdTensor>:$Rows, Variadic<PdTensor>:$X,
                       PdLongs<"[]">:$height_sections, PdLong<"-1">:$padding_idx);
  let results = (outs PdTensor:$Out);
  let assemblyFormat = [{
    $Ids `rows` `(` $Rows `)` `values` `(` $X `)` attr-dict `:`
    functional-type(operands, results)
  }];
  let inferRule = "inferMergeIds";
  let lowering = [{ lowerMergeIds(op) }];
}

// --- The server ------------------------------------------------------------------

def Pd_ListenAndServOp : Pd_Op<"listen_and_serv", [IsolatedFromAbove, NoTerminator,
                                                   NoRegionArguments]> {
  let summary = "A parameter server: receives gradients, runs its optimize blocks";
  let description = [{
    Paddle's listen_and_serv, the only op of a pserver program's block 0.
    Region i is the program's block i + 1 (Paddle's `optimize_blocks`, in
    order): the learning-rate block first when the program has one, then
    one block per parameter block this server holds (`sum` over the
    trainers' gradients and `scale` by 1/trainers in synchronous training,
    then regularization, clipping and the optimizer op). Blocks read and
    write the server's variables by symbol; `X` lists the variables the
    trainers send. `grad_to_block_id` maps each received gradient to the
    block it feeds ("fc_w@GRAD.block1:2"), as Paddle's asynchronous server
    runs a block when its gradient arrives. A region without a block is an
    empty optimize block (a server that holds no parameter block).

    ```mlir
    pd.listen_and_serv {Fanin = 2 : i32, endpoint = "127.0.0.1:6174", ...} {
      %g0 = pd.read_var @"fc_b@GRAD.trainer_0" : tensor<1000xf32>
      ...
      %s = pd.sum %g0, %g1 ...
    }
    ```
  }];
  let arguments = (ins FlatSymbolRefArrayAttr:$X, StrAttr:$endpoint, I32Attr:$pserver_id,
                       I32Attr:$Fanin, BoolAttr:$sync_mode, I32Attr:$distributed_mode,
                       StrArrayAttr:$grad_to_block_id,
                       DefaultValuedAttr<StrArrayAttr, "{}">:$sparse_grad_to_param,
                       DefaultValuedAttr<I32Attr, "-1">:$lr_decay_block_id);
  let regions = (region VariadicRegion<MaxSizedRegion<1>>:$optimize_blocks);
  let assemblyFormat = "attr-dict-with-keyword $optimize_blocks";
  let hasVerifier = 1;
}

#endif // DISTC_DIALECT_PD_PDPSOPS_TD
