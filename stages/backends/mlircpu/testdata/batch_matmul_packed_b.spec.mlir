// golden test
module attributes {transform.with_named_sequence} {
  // bmm: linalg.batch_matmul [4, 256, 512, 128], 1 operand(s) packed
  transform.named_sequence @match_bmm(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.batch_matmul"] : !transform.any_op
    %t0 = transform.match.structured failures(propagate) %op : (!transform.any_op) -> (!transform.any_op) {
    ^bb0(%s: !transform.any_op):
      %c1 = transform.param.constant 1 : i64 -> !transform.param<i64>
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %want_rank = transform.param.constant 4 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %want_rank : !transform.param<i64>
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      %want_d0 = transform.param.constant 4 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d0, %want_d0 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %want_d1 = transform.param.constant 256 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d1, %want_d1 : !transform.param<i64>
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %want_d2 = transform.param.constant 512 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d2, %want_d2 : !transform.param<i64>
      %d3 = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %want_d3 = transform.param.constant 128 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d3, %want_d3 : !transform.param<i64>
      %map0 = transform.match.structured.input %s[0] : (!transform.any_op) -> !transform.affine_map
      %want_map0 = transform.param.constant affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)> -> !transform.affine_map
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
      %want_map1 = transform.param.constant affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)> -> !transform.affine_map
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
      %want_map2 = transform.param.constant affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)> -> !transform.affine_map
      %both_map2 = transform.merge_handles deduplicate %map2, %want_map2 : !transform.affine_map
      %count_map2 = transform.num_associations %both_map2 : (!transform.affine_map) -> !transform.param<i64>
      transform.match.param.cmpi eq %count_map2, %c1 : !transform.param<i64>
      %value2 = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %type2 = transform.get_type elemental %value2 : (!transform.any_value) -> !transform.type
      %want_type2 = transform.param.constant f32 -> !transform.type
      %both_type2 = transform.merge_handles deduplicate %type2, %want_type2 : !transform.type
      %count_type2 = transform.num_associations %both_type2 : (!transform.type) -> !transform.param<i64>
      transform.match.param.cmpi eq %count_type2, %c1 : !transform.param<i64>
      %producer0 = transform.match.structured.input %s[1] : (!transform.any_op) -> !transform.any_op
      transform.match.structured.yield %producer0 : !transform.any_op
    }
    transform.match.operation_name %t0 ["linalg.transpose"] : !transform.any_op
    transform.match.structured failures(propagate) %t0 : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %c1 = transform.param.constant 1 : i64 -> !transform.param<i64>
      %map0 = transform.match.structured.input %s[0] : (!transform.any_op) -> !transform.affine_map
      %want_map0 = transform.param.constant affine_map<(d0, d1, d2) -> (d0, d2, d1)> -> !transform.affine_map
      %both_map0 = transform.merge_handles deduplicate %map0, %want_map0 : !transform.affine_map
      %count_map0 = transform.num_associations %both_map0 : (!transform.affine_map) -> !transform.param<i64>
      transform.match.param.cmpi eq %count_map0, %c1 : !transform.param<i64>
      %only_user = transform.match.structured.result %s[0] single : (!transform.any_op) -> !transform.any_op
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @apply_bmm(%op: !transform.any_op {transform.consumed}) {
    %fused0, %loops1:2 = transform.structured.fuse %op tile_sizes [1, 0, 64] {apply_cleanup}
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    %inner2 = transform.structured.match attributes{retune.root} in %loops1#0 : (!transform.any_op) -> !transform.any_op
    %producer5 = transform.get_producer_of_operand %inner2[1] : (!transform.any_op) -> !transform.any_op
    %panel3, %panelops4 = transform.structured.bufferize_to_allocation %producer5 {bufferize_destination_only, emit_dealloc} : !transform.any_op
    %producer6 = transform.get_producer_of_operand %inner2[1] : (!transform.any_op) -> !transform.any_op
    %tiled7, %loops8:3 = transform.structured.tile_using_for %producer6 tile_sizes [1, 16, 16] interchange = [0, 2, 1]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.structured.vectorize %tiled7 : !transform.any_op
    %tiled9, %loops10 = transform.structured.tile_using_for %inner2 tile_sizes [0, 0, 0, 64]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %tiled11, %loops12:4 = transform.structured.tile_using_for %tiled9 tile_sizes [1, 8, 32, 1] interchange = [0, 2, 1, 3]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.structured.vectorize %tiled11 {create_named_contraction} : !transform.any_op
    transform.loop.unroll %loops12#3 {factor = 2} : !transform.any_op
    %found13 = transform.structured.match ops{["linalg.fill"]} in %loops1#0 : (!transform.any_op) -> !transform.any_op
    %rows14, %rowloops15:3 = transform.structured.tile_using_for %found13 tile_sizes [1, 1, 64]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.structured.vectorize %rows14 : !transform.any_op
    transform.yield
  }
  transform.named_sequence @__retune_config(%root: !transform.any_op {transform.consumed}) -> !transform.any_op {
    %result = transform.foreach_match in %root
        @match_bmm -> @apply_bmm
        : (!transform.any_op) -> !transform.any_op
    transform.yield %result : !transform.any_op
  }
}
