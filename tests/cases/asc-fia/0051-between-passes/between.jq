[.[] | select(.type == "kernel")] as $k
| ($k | map(select(.name | test("[Bb]atchSendRecv")))) as $p2p
| ($k | map(select(.name | test("Adam")))) as $opt
| [.[] | select(.type == "fia_layer")] as $l
| (.[] | select(.type == "fia_summary")) as $s
| "kernels \($k | length), in layers + prologue + between passes \(($l | map(.kernels) | add) + $s.prologue_kernels + ([$s.between_passes[].kernels] | add))",
  "send/receive kernels \($p2p | length), sum \($p2p | map(.dur_ns) | add) ns; between_passes \($s.between_passes.pipeline_send_receive)",
  "Adam kernels \($opt | length), sum \($opt | map(.dur_ns) | add) ns; between_passes optimizer \($s.between_passes.optimizer)",
  "layers overlapping a send/receive or an Adam kernel: \([$l[] as $L | ($p2p + $opt)[] | select(.start_ns < $L.end_ns and .end_ns > $L.start_ns) | $L.layer] | unique)",
  "between_passes parts: \($s.between_passes | keys_unsorted)"
