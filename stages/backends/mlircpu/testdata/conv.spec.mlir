module attributes {transform.with_named_sequence} {
  // conv: linalg.conv_2d_nhwc_hwcf [1, 28, 28, 64, 3, 3, 64]
  transform.named_sequence @match_conv(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.conv_2d_nhwc_hwcf"] : !transform.any_op
    transform.match.structured failures(propagate) %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %c1 = transform.param.constant 1 : i64 -> !transform.param<i64>
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %want_rank = transform.param.constant 7 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %want_rank : !transform.param<i64>
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      %want_d0 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d0, %want_d0 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %want_d1 = transform.param.constant 28 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d1, %want_d1 : !transform.param<i64>
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %want_d2 = transform.param.constant 28 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d2, %want_d2 : !transform.param<i64>
      %d3 = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %want_d3 = transform.param.constant 64 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d3, %want_d3 : !transform.param<i64>
      %d4 = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      %want_d4 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d4, %want_d4 : !transform.param<i64>
      %d5 = transform.match.structured.dim %s[5] : (!transform.any_op) -> !transform.param<i64>
      %want_d5 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d5, %want_d5 : !transform.param<i64>
      %d6 = transform.match.structured.dim %s[6] : (!transform.any_op) -> !transform.param<i64>
      %want_d6 = transform.param.constant 64 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d6, %want_d6 : !transform.param<i64>
      %map0 = transform.match.structured.input %s[0] : (!transform.any_op) -> !transform.affine_map
      %want_map0 = transform.param.constant affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5, d6)> -> !transform.affine_map
      %both_map0 = transform.merge_handles deduplicate %map0, %want_map0 : !transform.affine_map
      %count_map0 = transform.num_associations %both_map0 : (!transform.affine_map) -> !transform.param<i64>
      transform.match.param.cmpi eq %count_map0, %c1 : !transform.param<i64>
      %value0 = transform.match.structured.input %s[0] : (!transform.any_op) -> !transform.any_value
      %type0 = transform.get_type elemental %value0 : (!transform.any_value) -> !transform.type
      %want_type0 = transform.param.constant f32 -> !transform.type
      %both_type0 = transform.merge_handles deduplicate %type0, %want_type0 : !transform.type
      %count_type0 = transform.num_associations %both_type0 : (!transform.type) -> !transform.param<i64>
      transform.match.param.cmpi eq %count_type0, %c1 : !transform.param<i64>
      %map1 = transform.match.structured.input %s[1] : (!transform.any_op) -> !transform.affine_map
      %want_map1 = transform.param.constant affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)> -> !transform.affine_map
      %both_map1 = transform.merge_handles deduplicate %map1, %want_map1 : !transform.affine_map
      %count_map1 = transform.num_associations %both_map1 : (!transform.affine_map) -> !transform.param<i64>
      transform.match.param.cmpi eq %count_map1, %c1 : !transform.param<i64>
      %value1 = transform.match.structured.input %s[1] : (!transform.any_op) -> !transform.any_value
      %type1 = transform.get_type elemental %value1 : (!transform.any_value) -> !transform.type
      %want_type1 = transform.param.constant f32 -> !transform.type
      %both_type1 = transform.merge_handles deduplicate %type1, %want_type1 : !transform.type
      %count_type1 = transform.num_associations %both_type1 : (!transform.type) -> !transform.param<i64>
      transform.match.param.cmpi eq %count_type1, %c1 : !transform.param<i64>
      %map2 = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.affine_map
      %want_map2 = transform.param.constant affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)> -> !transform.affine_map
      %both_map2 = transform.merge_handles deduplicate %map2, %want_map2 : !transform.affine_map
      %count_map2 = transform.num_associations %both_map2 : (!transform.affine_map) -> !transform.param<i64>
      transform.match.param.cmpi eq %count_map2, %c1 : !transform.param<i64>
      %value2 = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %type2 = transform.get_type elemental %value2 : (!transform.any_value) -> !transform.type
      %want_type2 = transform.param.constant f32 -> !transform.type
      %both_type2 = transform.merge_handles deduplicate %type2, %want_type2 : !transform.type
      %count_type2 = transform.num_associations %both_type2 : (!transform.type) -> !transform.param<i64>
      transform.match.param.cmpi eq %count_type2, %c1 : !transform.param<i64>
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @apply_conv(%op: !transform.any_op {transform.consumed}) {
    %tiled0, %loops1:7 = transform.structured.tile_using_for %op tile_sizes [1, 1, 14, 16, 1, 1, 1]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %decomposed2 = transform.structured.decompose %tiled0 : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %decomposed2 : !transform.any_op
    transform.yield
  }
  transform.named_sequence @__retune_config(%root: !transform.any_op {transform.consumed}) -> !transform.any_op {
    %result = transform.foreach_match in %root
        @match_conv -> @apply_conv
        : (!transform.any_op) -> !transform.any_op
    transform.yield %result : !transform.any_op
  }
}
