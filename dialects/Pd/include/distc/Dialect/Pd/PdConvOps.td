//===- PdConvOps.td - Paddle's convolutions and pooling ----*- tablegen -*-===//
//
// conv2d, depthwise_conv2d, conv2d_transpose and pool2d with their gradient
// ops, in Paddle's ProgramDesc form (slots and attributes of
// paddle/phi/api/yaml/op_compat.yaml). The padding rules are ConvGeometry.h's;
// the shape rules are Inference/ConvRules.cpp's; the lowerings
// (Target/LowerConv.cpp) call the `conv2d*` and `pool2d*` kernels.
//
// Attributes exporters add for one backend (use_cudnn, use_mkldnn,
// workspace_size_MB, exhaustive_search, ...) are not declared: the importer
// keeps them as they are, and the lowering refuses those that change the
// result (fused activations, residual data, int8 quantization) by name.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_DIALECT_PD_PDCONVOPS_TD
#define DISTC_DIALECT_PD_PDCONVOPS_TD

// A list of ints Paddle gives no default (pool2d's ksize).
def PdRequiredInts : DenseArrayAttrBase<"DenseI32ArrayAttr", "int32_t", "i32"> {
  string pdKind = "Ints";
}

// The ops of conv2d's form: Input [N, C, H, W] (or NHWC), Filter
// [M, C / groups, kh, kw], Output [N, M, oh, ow]. Bias [M], added to every
// output position of its channel, is the slot of the fused form some
// exporters write (oneDNN's conv + bias); Paddle's plain programs add the
// bias with a separate elementwise_add.
class Pd_ConvOp<string mnemonic, string what> : Pd_CatalogOp<mnemonic, [Pure]> {
  let summary = what;
  let arguments = (ins PdTensor:$Input, PdTensor:$Filter, Optional<PdTensor>:$Bias,
                       PdInts<"[1,1]">:$strides,
                       PdInts<"[0,0]">:$paddings, PdStr<"EXPLICIT">:$padding_algorithm,
                       PdInt<"1">:$groups, PdInts<"[1,1]">:$dilations,
                       PdStr<"NCHW">:$data_format);
  let results = (outs PdTensor:$Output);
  // The fused form's residual input (oneDNN's conv + sum).
  let unsupportedInputs = ["ResidualData"];
  let inferRule = "inferConv2d";
  let lowering = [{ lowerConv2d(op) }];
  let gradOp = mnemonic # "_grad";
  let spmdRule = mnemonic;
}
def Pd_Conv2dOp : Pd_ConvOp<"conv2d", "2-D convolution (cross-correlation), grouped">;
def Pd_DepthwiseConv2dOp
    : Pd_ConvOp<"depthwise_conv2d", "2-D convolution, one group per input channel">;

def Pd_Conv2dTransposeOp : Pd_CatalogOp<"conv2d_transpose", [Pure]> {
  let summary = "2-D transposed convolution (the adjoint of conv2d)";
  let description = [{
    Input [N, C, H, W], Filter [C, M / groups, kh, kw], Output [N, M, oh, ow]
    with oh = (H - 1) * stride - pads + dilated kh, plus output_padding, or
    output_size when given (at most stride - 1 more).
  }];
  let arguments = (ins PdTensor:$Input, PdTensor:$Filter, PdInts<"[]">:$output_padding,
                       PdInts<"[]">:$output_size, PdInt<"1">:$groups,
                       PdInts<"[1,1]">:$dilations, PdInts<"[1,1]">:$strides,
                       PdInts<"[0,0]">:$paddings, PdStr<"EXPLICIT">:$padding_algorithm,
                       PdStr<"NCHW">:$data_format);
  let results = (outs PdTensor:$Output);
  let unsupportedInputs = ["Bias"];
  // pd_op.conv2d_transpose(x, filter, output_size): output_size is an
  // IntArray operand (pd_op.full_int_array, empty when not given).
  let pirOperands = ["Input", "Filter", "attr:output_size"];
  let inferRule = "inferConv2dTranspose";
  let lowering = [{ lowerConv2dTranspose(op) }];
  let gradOp = "conv2d_transpose_grad";
  let spmdRule = "conv2d_transpose";
}

def Pd_Pool2dOp : Pd_CatalogOp<"pool2d", [Pure]> {
  let summary = "2-D max or average pooling";
  let description = [{
    `pooling_type` max or avg over ksize windows; `global_pooling` pools the
    whole plane, `adaptive` makes ksize the output size; `exclusive` averages
    over the window's elements inside the input only.
  }];
  let arguments = (ins PdTensor:$X, StrAttr:$pooling_type, PdRequiredInts:$ksize,
                       PdBool<"false">:$global_pooling, PdInts<"[1,1]">:$strides,
                       PdInts<"[0,0]">:$paddings, PdBool<"true">:$exclusive,
                       PdBool<"false">:$adaptive, PdBool<"false">:$ceil_mode,
                       PdStr<"NCHW">:$data_format, PdStr<"EXPLICIT">:$padding_algorithm);
  let results = (outs PdTensor:$Out);
  // pd_op.pool2d(x, kernel_size, ...): the kernel size is an operand.
  let pirOperands = ["X", "attr:ksize"];
  let inferRule = "inferPool2d";
  let lowering = [{ lowerPool2d(op) }];
  let gradOp = "pool2d_grad";
  let spmdRule = "pool2d";
}

// --- Gradients ----------------------------------------------------------------

// Paddle's grad maker writes the Bias slots even when the forward op has
// no Bias (empty); Bias@GRAD is the gradient of the fused form's Bias.
class Pd_ConvGradOp<string mnemonic, string what> : Pd_GradOp<mnemonic, what> {
  let arguments = (ins PdTensor:$Input, PdTensor:$Filter, Optional<PdTensor>:$Bias,
                       PdTensor:$Output_GRAD,
                       PdInts<"[1,1]">:$strides, PdInts<"[0,0]">:$paddings,
                       PdStr<"EXPLICIT">:$padding_algorithm, PdInt<"1">:$groups,
                       PdInts<"[1,1]">:$dilations, PdStr<"NCHW">:$data_format);
  let results = (outs PdTensor:$Input_GRAD, PdTensor:$Filter_GRAD, PdTensor:$Bias_GRAD);
  // Bias@GRAD is [M] from Filter, whether or not Bias is given.
  let inferRule = "inferConv2dGrad";
  let lowering = [{ lowerConv2dGrad(op) }];
  let spmdRule = mnemonic;
}
def Pd_Conv2dGradOp : Pd_ConvGradOp<"conv2d_grad", "conv2d">;
def Pd_DepthwiseConv2dGradOp : Pd_ConvGradOp<"depthwise_conv2d_grad", "depthwise_conv2d">;

def Pd_Conv2dTransposeGradOp : Pd_GradOp<"conv2d_transpose_grad", "conv2d_transpose"> {
  let arguments = (ins PdTensor:$Input, PdTensor:$Filter, PdTensor:$Output_GRAD,
                       PdInts<"[]">:$output_padding, PdInts<"[]">:$output_size,
                       PdInt<"1">:$groups, PdInts<"[1,1]">:$dilations,
                       PdInts<"[1,1]">:$strides, PdInts<"[0,0]">:$paddings,
                       PdStr<"EXPLICIT">:$padding_algorithm, PdStr<"NCHW">:$data_format);
  let results = (outs PdTensor:$Input_GRAD, PdTensor:$Filter_GRAD);
  let lowering = [{ lowerConv2dTransposeGrad(op) }];
  let spmdRule = "conv2d_transpose_grad";
}

def Pd_Pool2dGradOp : Pd_GradOp<"pool2d_grad", "pool2d"> {
  let arguments = (ins PdTensor:$X, PdTensor:$Out, PdTensor:$Out_GRAD, StrAttr:$pooling_type,
                       PdRequiredInts:$ksize, PdBool<"false">:$global_pooling,
                       PdInts<"[1,1]">:$strides, PdInts<"[0,0]">:$paddings,
                       PdBool<"true">:$exclusive, PdBool<"false">:$adaptive,
                       PdBool<"false">:$ceil_mode, PdStr<"NCHW">:$data_format,
                       PdStr<"EXPLICIT">:$padding_algorithm);
  let results = (outs PdTensor:$X_GRAD);
  let lowering = [{ lowerPool2dGrad(op) }];
  let spmdRule = "pool2d_grad";
}

#endif // DISTC_DIALECT_PD_PDCONVOPS_TD
