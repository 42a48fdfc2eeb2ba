module attributes {iree_codegen.tuning_spec_with_default_entrypoint, transform.with_named_sequence} {
  transform.named_sequence @apply_op_config(%arg0: !transform.any_op {transform.readonly}, %arg1: !transform.any_param {transform.readonly}) {
    transform.annotate %arg0 "compilation_info" = %arg1 : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @match_main_dispatch_3_conv(%arg0: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) {
    %batch, %output_image, %output_channel, %filter, %input_channel, %depth, %strides, %dilations = transform.iree.match.convolution %arg0, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [2] : !transform.param<i64>
    transform.iree.match.dims_equal %output_image, [32, 32] : !transform.param<i64>
    transform.iree.match.dims_equal %output_channel, [128] : !transform.param<i64>
    transform.iree.match.dims_equal %filter, [3, 3] : !transform.param<i64>
    transform.iree.match.dims_equal %input_channel, [64] : !transform.param<i64>
    transform.iree.match.dims_equal %depth, [] : !transform.param<i64>
    transform.iree.match.dims_equal %strides, [1, 1] : !transform.param<i64>
    transform.iree.match.dims_equal %dilations, [1, 1] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<MFMA_F32_16x16x16_F16>, promote_operands = [0, 1], reduction = [0, 0, 0, 0, 1, 1, 4], subgroup = [1, 2, 1, 2, 0, 0, 0], workgroup = [1, 4, 32, 64, 0, 0, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [256, 1, 1] subgroup_size = 64, {gpu_pipeline_options = #iree_gpu.pipeline_options<prefetch_num_stages = 2, use_igemm_convolution = true>}>> -> !transform.any_param
    transform.yield %arg0, %config : !transform.any_op, !transform.any_param
  }
  transform.named_sequence @__kernel_config(%arg0: !transform.any_op {transform.consumed}) -> !transform.any_op attributes {iree_codegen.tuning_spec_entrypoint} {
    %0 = transform.foreach_match in %arg0
        @match_main_dispatch_3_conv -> @apply_op_config
      : (!transform.any_op) -> !transform.any_op
    transform.yield %0 : !transform.any_op
  }
}
