//===- PdShapeOps.td - Shape, padding and resize ops ------*- tablegen -*-===//
//
// The shape-type ops of the classic image classification models (ResNet,
// MobileNet, VGG, ShuffleNet) as Paddle's static export writes them:
// flatten_contiguous_range, squeeze2 and unsqueeze2 (views of X, with an
// XShape like reshape2's), shape, pad2d and pad3d, bilinear_interp_v2 and
// nearest_interp_v2, shuffle_channel, and their gradient ops. Included at
// the end of PdOps.td, whose classes (Pd_CatalogOp, Pd_GradOp, Pd*
// attributes) they use.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_DIALECT_PD_PDSHAPEOPS_TD
#define DISTC_DIALECT_PD_PDSHAPEOPS_TD

// A Paddle FLOATS attribute (interp's `scale`).
class PdFloats<string d>
    : PdAttr<DenseF32ArrayAttr, PdListDefault<"float", d>.value, "Floats", d>;

// --- Views of X with an XShape ---------------------------------------------

// An op whose Out is a view of X with other dims and whose XShape ([0] ++
// X.dims) carries X's shape to its gradient op, as reshape2's does.
// Their PIR ops (pd_op.flatten, pd_op.squeeze, pd_op.unsqueeze) have Out
// and, in Paddle versions before XShape was dropped, xshape as results: the
// second result is optional.
class Pd_XShapeViewOp<string mnemonic> : Pd_CatalogOp<mnemonic, [Pure]> {
  let results = (outs PdTensor:$Out, PdTensor:$XShape);
  let optionalOutputs = ["XShape"];
  let gradOp = mnemonic # "_grad";
}
// Its gradient: dOut viewed with the dims XShape carries.
class Pd_XShapeViewGradOp<string mnemonic, string forward> : Pd_GradOp<mnemonic, forward> {
  let results = (outs PdTensor:$X_GRAD);
  let inferRule = "inferXShapeGrad";
  let lowering = [{ lowerReshapeGrad(op) }];
}

def Pd_FlattenContiguousRangeOp : Pd_XShapeViewOp<"flatten_contiguous_range"> {
  let summary = "X with dims [start_axis, stop_axis] merged into one";
  let pirName = "flatten"; // pd_op.flatten(x) {start_axis, stop_axis}
  let arguments = (ins PdTensor:$X, PdInt<"1">:$start_axis, PdInt<"1">:$stop_axis);
  let inferRule = "inferFlattenRange";
  let lowering = [{ lowerFlattenRange(op) }];
  let spmdRule = "flatten_with_xshape";
}
def Pd_FlattenContiguousRangeGradOp
    : Pd_XShapeViewGradOp<"flatten_contiguous_range_grad", "flatten_contiguous_range"> {
  let spmdRule = "flatten_grad";
  let arguments = (ins PdTensor:$XShape, PdTensor:$Out_GRAD, PdInt<"1">:$start_axis,
                       PdInt<"1">:$stop_axis);
}

def Pd_Squeeze2Op : Pd_XShapeViewOp<"squeeze2"> {
  let summary = "X without its size-1 dims listed in `axes` (all of them if empty)";
  let pirName = "squeeze"; // pd_op.squeeze(x, axis): axes is an IntArray operand
  let pirOperands = ["X", "attr:axes"];
  let arguments = (ins PdTensor:$X, PdInts<"[]">:$axes);
  let inferRule = "inferSqueeze2";
  let lowering = [{ lowerSqueeze(op) }];
  let spmdRule = "squeeze_with_xshape";
  let spmdAttrs = ["axis:axes"];
}
def Pd_Squeeze2GradOp : Pd_XShapeViewGradOp<"squeeze2_grad", "squeeze2"> {
  let spmdRule = "squeeze_grad";
  let arguments = (ins PdTensor:$XShape, PdTensor:$Out_GRAD, PdInts<"[]">:$axes);
}

def Pd_Unsqueeze2Op : Pd_XShapeViewOp<"unsqueeze2"> {
  let summary = "X with size-1 dims inserted at `axes`, one after the other";
  let pirName = "unsqueeze"; // pd_op.unsqueeze(x, axis): axes is an IntArray operand
  let pirOperands = ["X", "attr:axes"];
  let arguments = (ins PdTensor:$X, PdInts<"[]">:$axes);
  let foldedInputs = ["AxesTensor=axes", "AxesTensorList=axes"];
  let inferRule = "inferUnsqueeze2";
  let lowering = [{ lowerUnsqueeze(op) }];
  let spmdRule = "unsqueeze_with_xshape";
  let spmdAttrs = ["axis:axes"];
}
def Pd_Unsqueeze2GradOp : Pd_XShapeViewGradOp<"unsqueeze2_grad", "unsqueeze2"> {
  let spmdRule = "unsqueeze_grad";
  let arguments = (ins PdTensor:$XShape, PdTensor:$Out_GRAD, PdInts<"[]">:$axes);
}

// --- Shape -------------------------------------------------------------------

def Pd_ShapeOp : Pd_CatalogOp<"shape", [Pure]> {
  let summary = "The dims of Input as a 1-D int32 tensor";
  let arguments = (ins PdTensor:$Input);
  let results = (outs PdTensor:$Out);
  let inferRule = "inferShapeOf";
  let lowering = [{ lowerShapeOf(op) }];
  let spmdRule = "shape";
}

// --- Channel shuffle ---------------------------------------------------------

def Pd_ShuffleChannelOp : Pd_CatalogOp<"shuffle_channel", [Pure]> {
  let summary = "The channels of NCHW X as [group, C/group], transposed (ShuffleNet)";
  let arguments = (ins PdTensor:$X, PdInt<"1">:$group);
  let results = (outs PdTensor:$Out);
  let inferRule = "inferShuffleChannel";
  let lowering = [{ lowerShuffleChannel(op, /*grad=*/false) }];
  let gradOp = "shuffle_channel_grad";
  let spmdRule = "shuffle_channel";
}
def Pd_ShuffleChannelGradOp : Pd_GradOp<"shuffle_channel_grad", "shuffle_channel"> {
  let spmdRule = "shuffle_channel_grad";
  let arguments = (ins PdTensor:$Out_GRAD, PdInt<"1">:$group);
  let results = (outs PdTensor:$X_GRAD);
  let inferRule = "inferSameAsX";
  let lowering = [{ lowerShuffleChannel(op, /*grad=*/true) }];
}

// Paddle 2.3's F.channel_shuffle writes this op (NCHW or NHWC) instead.
def Pd_ChannelShuffleOp : Pd_CatalogOp<"channel_shuffle", [Pure]> {
  let summary = "The channels of X as [groups, C/groups], transposed (F.channel_shuffle)";
  let arguments = (ins PdTensor:$X, PdInt<"1">:$groups, PdStr<"NCHW">:$data_format);
  let results = (outs PdTensor:$Out);
  let inferRule = "inferChannelShuffle";
  let lowering = [{ lowerShuffleChannel(op, /*grad=*/false) }];
  let gradOp = "channel_shuffle_grad";
  let spmdRule = "channel_shuffle";
}
def Pd_ChannelShuffleGradOp : Pd_GradOp<"channel_shuffle_grad", "channel_shuffle"> {
  let spmdRule = "channel_shuffle_grad";
  let arguments = (ins PdTensor:$Out_GRAD, PdInt<"1">:$groups, PdStr<"NCHW">:$data_format);
  let results = (outs PdTensor:$X_GRAD);
  let inferRule = "inferSameAsX";
  let lowering = [{ lowerShuffleChannel(op, /*grad=*/true) }];
}

// --- Padding -----------------------------------------------------------------

def Pd_Pad2dOp : Pd_CatalogOp<"pad2d", [Pure]> {
  let hasPirForm = 0; // no PIR op
  let summary = "4-D X padded in H and W by `paddings` [top, bottom, left, right]";
  let arguments = (ins PdTensor:$X, PdInts<"[0,0,0,0]">:$paddings,
                       PdStr<"constant">:$mode, PdFloat<"0">:$pad_value,
                       PdStr<"NCHW">:$data_format);
  let results = (outs PdTensor:$Out);
  let foldedInputs = ["Paddings=paddings"];
  let inferRule = "inferPad2d";
  let lowering = [{ lowerPad(op, /*innerFirst=*/false, "pad_value") }];
  let gradOp = "pad2d_grad";
  let spmdRule = "pad2d";
}
def Pd_Pad2dGradOp : Pd_GradOp<"pad2d_grad", "pad2d"> {
  let spmdRule = "pad2d_grad";
  let arguments = (ins PdTensor:$X, PdTensor:$Out_GRAD, PdInts<"[0,0,0,0]">:$paddings,
                       PdStr<"constant">:$mode, PdFloat<"0">:$pad_value,
                       PdStr<"NCHW">:$data_format);
  let results = (outs PdTensor:$X_GRAD);
  let foldedInputs = ["Paddings=paddings"];
  let lowering = [{ lowerPad(op, /*innerFirst=*/false, "pad_value") }];
}

def Pd_Pad3dOp : Pd_CatalogOp<"pad3d", [Pure]> {
  // pd_op.pad3d(x, paddings) {mode, pad_value, data_format}: paddings is an
  // IntArray operand; pad_value is value.
  let pirOperands = ["X", "attr:paddings"];
  let pirAttrs = ["pad_value:value"];
  let summary = "5-D X padded in D, H and W by `paddings` [left, right, top, bottom, front, back]";
  let arguments = (ins PdTensor:$X, PdInts<"[]">:$paddings, PdStr<"constant">:$mode,
                       PdFloat<"0">:$value, PdStr<"NCDHW">:$data_format);
  let results = (outs PdTensor:$Out);
  let foldedInputs = ["Paddings=paddings"];
  let inferRule = "inferPad3d";
  let lowering = [{ lowerPad(op, /*innerFirst=*/true, "value") }];
  let gradOp = "pad3d_grad";
  let spmdRule = "pad3d";
}
def Pd_Pad3dGradOp : Pd_GradOp<"pad3d_grad", "pad3d"> {
  let spmdRule = "pad3d_grad";
  let arguments = (ins PdTensor:$X, PdTensor:$Out_GRAD, PdInts<"[]">:$paddings,
                       PdStr<"constant">:$mode, PdFloat<"0">:$value,
                       PdStr<"NCDHW">:$data_format);
  let results = (outs PdTensor:$X_GRAD);
  let foldedInputs = ["Paddings=paddings"];
  let lowering = [{ lowerPad(op, /*innerFirst=*/true, "value") }];
}

// --- Resize ------------------------------------------------------------------

// Paddle's interpolate v2 ops on 4-D X: the output size is `scale` × the
// input's (when given and positive) or out_h × out_w.
//
// PIR: pd_op.bilinear_interp / pd_op.nearest_interp(x, out_size,
// size_tensor, scale_tensor) {data_format, out_d, out_h, out_w, scale, ...}.
// The three optional operands are the ProgramDesc's OutSize, SizeTensor
// and Scale: Paddle leaves them out when the size or scale is given as
// numbers (attributes); distc takes that form only.
class Pd_InterpV2Op<string mnemonic, string method> : Pd_CatalogOp<mnemonic, [Pure]> {
  let pirName = !subst("_v2", "", mnemonic);
  let pirOperands = ["X", "-", "-", "-"];
  let pirAttrs = ["data_format:data_layout"];
  let summary = method # " resize of the H and W dims of 4-D X";
  let arguments = (ins PdTensor:$X, PdStr<"NCHW">:$data_layout, PdInt<"0">:$out_d,
                       PdInt<"0">:$out_h, PdInt<"0">:$out_w, PdFloats<"[]">:$scale,
                       PdStr<method>:$interp_method, PdBool<"true">:$align_corners,
                       PdInt<"1">:$align_mode);
  let results = (outs PdTensor:$Out);
  let foldedInputs = ["OutSize=out_h,out_w", "SizeTensor=out_h,out_w", "Scale=scale"];
  let inferRule = "inferInterpV2";
  let lowering = [{ lowerInterp(op) }];
  let gradOp = mnemonic # "_grad";
  let spmdRule = "interp_v2";
}
class Pd_InterpV2GradOp<string mnemonic, string forward, string method>
    : Pd_GradOp<mnemonic, forward> {
  let arguments = (ins PdTensor:$X, PdTensor:$Out_GRAD, PdStr<"NCHW">:$data_layout,
                       PdInt<"0">:$out_d, PdInt<"0">:$out_h, PdInt<"0">:$out_w,
                       PdFloats<"[]">:$scale, PdStr<method>:$interp_method,
                       PdBool<"true">:$align_corners, PdInt<"1">:$align_mode);
  let results = (outs PdTensor:$X_GRAD);
  let foldedInputs = ["OutSize=out_h,out_w", "SizeTensor=out_h,out_w", "Scale=scale"];
  let lowering = [{ lowerInterp(op) }];
  let spmdRule = "interp_v2_grad";
}
def Pd_BilinearInterpV2Op : Pd_InterpV2Op<"bilinear_interp_v2", "bilinear">;
def Pd_BilinearInterpV2GradOp
    : Pd_InterpV2GradOp<"bilinear_interp_v2_grad", "bilinear_interp_v2", "bilinear">;
def Pd_NearestInterpV2Op : Pd_InterpV2Op<"nearest_interp_v2", "nearest">;
def Pd_NearestInterpV2GradOp
    : Pd_InterpV2GradOp<"nearest_interp_v2_grad", "nearest_interp_v2", "nearest">;

#endif // DISTC_DIALECT_PD_PDSHAPEOPS_TD
