module attributes {iree_codegen.tuning_spec_with_default_entrypoint, transform.with_named_sequence} {
  transform.named_sequence @apply_op_config(%arg0: !transform.any_op {transform.readonly}, %arg1: !transform.any_param {transform.readonly}) {
    transform.annotate %arg0 "compilation_info" = %arg1 : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @apply_attn_op_config(%arg0: !transform.any_op {transform.readonly}, %arg1: !transform.any_param {transform.readonly}, %arg2: !transform.any_param {transform.readonly}) {
    transform.annotate %arg0 "compilation_info" = %arg1 : !transform.any_op, !transform.any_param
    transform.annotate %arg0 "decomposition_config" = %arg2 : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @match_main_dispatch_7_attention(%arg0: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param, !transform.any_param) {
    %batch, %m, %n, %k1, %k2 = transform.iree.match.attention %arg0, query_type = f16, key_type = f16, value_type = f16, output_type = f16, indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d5, d4)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d3, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> ()>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [2, 10] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [4096] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [64] : !transform.param<i64>
    transform.iree.match.dims_equal %k1, [64] : !transform.param<i64>
    transform.iree.match.dims_equal %k2, [64] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{promote_operands = [0, 1, 2], reduction = [0, 0, 0, 0, 0, 64], subgroup_basis = [[1, 1, 4, 1, 1, 1], [0, 1, 2, 3, 5]], workgroup = [1, 1, 128, 0, 0, 0]}>, translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [256] subgroup_size = 64, {gpu_pipeline_options = #iree_gpu.pipeline_options<prefetch_num_stages = 2>}>> -> !transform.any_param
    %decomposition_config = transform.param.constant {pv_attrs = {lowering_config = #iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<MFMA_F32_32x32x8_F16>, promote_operands = [1], subgroup_basis = [[1, 1, 4, 1, 1, 1], [0, 1, 2, 3, 5]]}>}, qk_attrs = {lowering_config = #iree_gpu.lowering_config<{mma_kind = #iree_gpu.virtual_mma_layout<VMFMA_F32_32x32x16_F16>, promote_operands = [0, 1], subgroup_basis = [[1, 1, 4, 1, 1, 1], [0, 1, 2, 4, 5]]}>}} -> !transform.any_param
    transform.yield %arg0, %config, %decomposition_config : !transform.any_op, !transform.any_param, !transform.any_param
  }
  transform.named_sequence @__kernel_config(%arg0: !transform.any_op {transform.consumed}) -> !transform.any_op attributes {iree_codegen.tuning_spec_entrypoint} {
    %0 = transform.foreach_match in %arg0
        @match_main_dispatch_7_attention -> @apply_attn_op_config
      : (!transform.any_op) -> !transform.any_op
    transform.yield %0 : !transform.any_op
  }
}
