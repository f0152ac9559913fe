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

class Pd_PsOp<string mnemonic, string what> : Pd_CatalogOp<mnemonic> {
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
