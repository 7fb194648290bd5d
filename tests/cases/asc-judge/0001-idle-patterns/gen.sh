# step_metrics lines: group step service_ns prelaunch_ns tail_ns internal_ns
m() {
	local busy=$(($3 - $4 - $5 - $6))
	printf '{"type":"step_metrics","profile":"p","step_id":"%s","group_id":"%s","window_source":"ProfilerStep","measurable_edges":true,"kernels":10,"service_ns":%d,"service_ms":0,"device_busy_union_ns":%d,"device_busy_union_ms":0,"underfeed_ns":%d,"underfeed_ms":0,"underfeed_ratio":%s,"prelaunch_gap_ns":%d,"prelaunch_gap_ms":0,"tail_gap_ns":%d,"tail_gap_ms":0,"internal_bubble_total_ns":%d,"internal_bubble_total_ms":0,"largest_internal_bubble_ns":%d,"largest_internal_bubble_ms":0,"bubble_count":1,"significant_bubble_count":%d,"tags":[]}\n' \
		"$2" "$1" "$3" "$busy" $(($4 + $5 + $6)) "$(awk -v a=$(($4 + $5 + $6)) -v b=$3 'BEGIN{printf "%.6f", a/b}')" "$4" "$5" "$6" "$6" "$7"
}
echo '{"type":"profile","profile":"p","origin_us":"1000.000","degraded":[],"config":{"level":"Level1"},"counts":{"kernel":10}}'
# g0: prelaunch dominates (4 ms of 10), tail small -> prelaunch
m g0 1 10000000 4000000 100000 500000 1
m g0 2 10000000 4000000 100000 500000 1
# g1: prelaunch 3 ms and tail 2 ms (>= half) -> inter_step
m g1 3 10000000 3000000 2000000 100000 1
# g2: internal 3 ms, prelaunch 2.5 ms (>= 0.8 x 3) -> mixed
m g2 4 10000000 2500000 0 3000000 1
# g3: largest 50 us < max(10 us, 1 % of 10 ms = 100 us) -> none
m g3 5 10000000 50000 0 20000 0
# g4: internal 2 ms only -> internal_bubble
m g4 6 10000000 0 0 2000000 0
