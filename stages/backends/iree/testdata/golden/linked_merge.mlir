module attributes {iree_codegen.tuning_spec_with_default_entrypoint, transform.with_named_sequence} {
  transform.named_sequence @apply_op_config(%arg0: !transform.any_op {transform.readonly}, %arg1: !transform.any_param {transform.readonly}) {
    transform.annotate %arg0 "compilation_info" = %arg1 : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @match_d0(%arg0: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) {
    %batch, %m, %n, %k = transform.iree.match.contraction %arg0, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [128] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [10240] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [1280] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<m128> -> !transform.any_param
    transform.yield %arg0, %config : !transform.any_op, !transform.any_param
  }
  transform.named_sequence @apply_op_config_0(%arg0: !transform.any_op {transform.readonly}, %arg1: !transform.any_param {transform.readonly}) {
    transform.annotate %arg0 "compilation_info" = %arg1 : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @match_d1(%arg0: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) {
    %batch, %m, %n, %k = transform.iree.match.contraction %arg0, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [256] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [10240] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [1280] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<m256> -> !transform.any_param
    transform.yield %arg0, %config : !transform.any_op, !transform.any_param
  }
  transform.named_sequence @match_d2(%arg0: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) {
    %batch, %m, %n, %k = transform.iree.match.contraction %arg0, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [512] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [10240] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [1280] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<m512> -> !transform.any_param
    transform.yield %arg0, %config : !transform.any_op, !transform.any_param
  }
  transform.named_sequence @apply_op_config_1(%arg0: !transform.any_op {transform.readonly}, %arg1: !transform.any_param {transform.readonly}) {
    transform.annotate %arg0 "compilation_info" = %arg1 : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @apply_op_config_0_0(%arg0: !transform.any_op {transform.readonly}) {
    transform.yield
  }
  transform.named_sequence @match_d3(%arg0: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_param) {
    %batch, %m, %n, %k = transform.iree.match.contraction %arg0, lhs_type = f16, rhs_type = f16, output_type = f32, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %batch, [] : !transform.param<i64>
    transform.iree.match.dims_equal %m, [1024] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [10240] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [1280] : !transform.param<i64>
    %config = transform.param.constant #iree_codegen.compilation_info<m1024> -> !transform.any_param
    transform.yield %arg0, %config : !transform.any_op, !transform.any_param
  }
  transform.named_sequence @__kernel_config(%arg0: !transform.any_op {transform.consumed}) -> !transform.any_op attributes {iree_codegen.tuning_spec_entrypoint} {
    %0 = transform.foreach_match in %arg0
        @match_d0 -> @apply_op_config,
        @match_d1 -> @apply_op_config_0,
        @match_d2 -> @apply_op_config_0,
        @match_d3 -> @apply_op_config_1
      : (!transform.any_op) -> !transform.any_op
    transform.yield %0 : !transform.any_op
  }
}
