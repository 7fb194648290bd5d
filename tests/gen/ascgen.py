#!/usr/bin/python3
"""ascgen.py - write a synthetic torch_npu (or MindSpore) Ascend profiler
export, in the byte shapes of real exports, plus a ground-truth JSON file.

Standard library only.  Everything is timed in integer nanoseconds; the
output is streamed step by step (bounded memory), see tests/gen/README.
"""
import argparse
import json
import os
import random
import shutil
import sys
import time

US = 1000  # ns per microsecond

# ---------------------------------------------------------------- catalogue
# aten op, aclnn api, kernel name, OP Type, core, block dim, in shapes,
# in dtypes, in formats, out shapes, out dtypes, out formats, dur lo, dur hi (us),
# input dims (trace arg), input types (trace arg), MindSpore launch op
KCAT = [
    ("aten::matmul", "aclnnMatmul", "aclnnMatmul_MatMulCommon_MatMulV2", "MatMulV2",
     "AI_CORE", 24, "4096,4096;4096,4096", "DT_BF16;DT_BF16", "ND;ND", "4096,4096",
     "DT_BF16", "ND", 120, 400, "[4096, 4096];\r\n[4096, 4096]",
     "c10::BFloat16;\r\nc10::BFloat16", "MatMulExt"),
    ("aten::add", "aclnnAdd", "aclnnAdd_AddAiCore_Add", "Add",
     "AI_VECTOR_CORE", 48, "4096,4096;4096,4096", "DT_BF16;DT_BF16", "ND;ND",
     "4096,4096", "DT_BF16", "ND", 40, 90, "[4096, 4096];\r\n[4096, 4096];\r\n[]",
     "c10::BFloat16;\r\nc10::BFloat16;\r\nScalar", "AddExt"),
    ("aten::layer_norm", "aclnnLayerNorm", "LayerNorm", "LayerNorm",
     "AI_VECTOR_CORE", 40, "4096,4096;4096;4096", "DT_BF16;DT_BF16;DT_BF16",
     "ND;ND;ND", "4096,4096;4096,1;4096,1", "DT_BF16;FLOAT;FLOAT", "ND;ND;ND", 50, 120,
     "[4096, 4096];\r\n[];\r\n[4096];\r\n[4096];\r\n[]",
     "c10::BFloat16;\r\nIntList;\r\nc10::BFloat16;\r\nc10::BFloat16;\r\nScalar", "LayerNormExt"),
    ("aten::_softmax", "aclnnSoftmax", "Softmax", "SoftmaxV2",
     "AI_VECTOR_CORE", 40, "32,16,128,128", "DT_BF16", "ND", "32,16,128,128",
     "DT_BF16", "ND", 60, 150, "[32, 16, 128, 128];\r\n[];\r\n[]",
     "c10::BFloat16;\r\nScalar;\r\nScalar", "Softmax"),
    ("aten::copy_", "aclnnInplaceCopy", "aclnnInplaceCopy_TensorMoveAiCore_TensorMove",
     "TensorMove", "AI_VECTOR_CORE", 48, "4096,4096", "DT_BF16", "ND", "4096,4096",
     "DT_BF16", "ND", 40, 80, "[4096, 4096];\r\n[4096, 4096];\r\n[]",
     "c10::BFloat16;\r\nc10::BFloat16;\r\nScalar", "InplaceCopy"),
    ("aten::gelu", "aclnnGelu", "aclnnGelu_GeluAiCore_Gelu", "Gelu",
     "AI_VECTOR_CORE", 48, "4096,16384", "DT_BF16", "ND", "4096,16384",
     "DT_BF16", "ND", 45, 100, "[4096, 16384];\r\n[]", "c10::BFloat16;\r\nstr", "GeLU"),
]
K2ND = ("aten::mul", "aclnnMul", "aclnnMul_MulAiCore_Mul", "Mul",
        "AI_VECTOR_CORE", 48, "4096,4096;4096,4096", "DT_BF16;DT_BF16", "ND;ND",
        "4096,4096", "DT_BF16", "ND", 30, 70, "[4096, 4096];\r\n[4096, 4096]",
        "c10::BFloat16;\r\nc10::BFloat16", "Mul")
KCPU = ("aten::unique", "aclopCompileAndExecute", "Unique", "Unique",
        "AI_CPU", 1, "8192", "INT64", "ND", "8192;8192;8192", "INT64;INT64;INT64",
        "ND;ND;ND", 80, 200, "[8192];\r\n[];\r\n[];\r\n[]",
        "long int;\r\nScalar;\r\nScalar;\r\nScalar", "Unique")
KCPU2 = ("aten::nonzero", "aclopCompileAndExecute", "NonZero", "NonZero",
         "AI_CPU", 1, "8192", "INT64", "ND", "8192,1", "INT64", "ND", 30, 60, "[8192]",
         "long int", "NonZero")
KANCHOR = ("aten::zero_", "aclnnInplaceZero", "aclnnInplaceZero_ZerosLikeAiCore_ZerosLike",
           "ZerosLike", "AI_VECTOR_CORE", 8, "1024", "DT_BF16", "ND", "1024", "DT_BF16",
           "ND", 2, 4, "[1024]", "c10::BFloat16", "ZerosLike")
KCOMM = ("c10d::allreduce_", "hcom_allReduce_", "hcom_allReduce__428_%d_1",
         "hcom_allReduce_", "COMMUNICATION", 0, "", "", "", "", "", "", 300, 1500,
         "[[4097000]];\r\n[]", "GenericList;\r\nScalar", "AllReduce")



def moe_k(kname, optype, core, lo, hi, shapes='128,7168'):
    """A catalogue entry for the --moe model (durations in us)."""
    return ('aten::npu_' + optype.lower(), 'aclnn' + optype, kname, optype, core,
            1 if core == 'AI_CPU' else 24, shapes, 'DT_BF16', 'ND', shapes, 'DT_BF16', 'ND',
            lo, hi, '[%s]' % shapes.replace(',', ', '), 'c10::BFloat16', optype)


# --moe: (op, role, how, entry-or-durations).  how: m main stream 2, c comm
# (no stream id) that the main stream overlaps, w comm the main stream waits
# for, a AI_CPU on stream 5 overlapping the main stream.  Roles are the
# names of lib/rules.json "fia.roles" that the kernel names match.
MOE_FIA = moe_k('FusedInferAttentionScore', 'FusedInferAttentionScore', 'MIX_AIC', 10500, 13000)
MOE_FIA_DEC = moe_k('FusedInferAttentionScore', 'FusedInferAttentionScore', 'MIX_AIC', 150, 400)
# --pfa-ifa: prefill and decode attention as PromptFlashAttention (between
# the FIA duration thresholds: only its name makes it prefill) and
# IncreFlashAttention (aclnn name), without FusedInferAttentionScore.
MOE_PFA = moe_k('PromptFlashAttention', 'PromptFlashAttention', 'MIX_AIC', 2000, 5000)
MOE_IFA = moe_k('aclnnIncreFlashAttentionV4_IncreFlashAttention_IncreFlashAttention',
                'IncreFlashAttention', 'MIX_AIC', 150, 400)
PFA_IFA = False
MOE_AR = ('c10d::allreduce_', 'hcom_allReduce_', 'hcom_allReduce__512_%d_1', 'hcom_allReduce_',
          'COMMUNICATION', 0, '', '', '', '', '', '', 400, 900, '[[917504]];\r\n[]',
          'GenericList;\r\nScalar', 'AllReduce')
MOE_A2A = ('c10d::alltoall_base_', 'hcom_alltoallv_', 'hcom_alltoallv__512_%d_1', 'hcom_alltoallv_',
           'COMMUNICATION', 0, '', '', '', '', '', '', 1500, 3000, '[[917504]];\r\n[]',
           'GenericList;\r\nScalar', 'AlltoAllV')


def moe_ops(kind, decode_last):
    """Kernel sequence of one layer: [(entry, role, how, lo_us, hi_us)]."""
    dec = kind == 'decode'

    def m(name, optype, core, lo, hi, dlo, dhi, role):
        return (moe_k(name, optype, core, lo, hi), role, 'm', dlo if dec else lo, dhi if dec else hi)
    fia = (MOE_FIA_DEC if dec else MOE_FIA, 'attention', 'm', 150 if dec else 10500, 400 if dec else 13000)
    if PFA_IFA:
        fia = (MOE_IFA if dec else MOE_PFA, 'attention', 'm', 150 if dec else 2000, 400 if dec else 5000)
    oproj = m('aclnnMatmul_MatMulCommon_MatMulV2', 'MatMulV2', 'AI_CORE', 300, 600, 30, 60, 'projection')
    ar = (MOE_AR, 'tp_comm', 'c', 50 if dec else 400, 120 if dec else 900)
    norm = m('RmsNorm', 'RmsNorm', 'AI_VECTOR_CORE', 60, 120, 15, 30, 'norm')
    cast = m('aclnnCast_CastAiCore_Cast', 'Cast', 'AI_VECTOR_CORE', 3, 8, 3, 8, 'small_op_overhead')
    prep = [cast,
            m('AddRmsNorm', 'AddRmsNorm', 'AI_VECTOR_CORE', 60, 120, 15, 30, 'next_layer_prep'),
            m('QuantBatchMatmulV3', 'QuantBatchMatmulV3', 'AI_CORE', 300, 500, 20, 40, 'projection'),
            m('RotaryPositionEmbedding', 'RotaryPositionEmbedding', 'AI_VECTOR_CORE', 50, 100, 10, 20,
              'attention'),
            cast]
    gate = m('MoeGatingTopK', 'MoeGatingTopK', 'AI_VECTOR_CORE', 80, 150, 20, 40, 'moe_routing')
    swiglu = m('Swiglu', 'Swiglu', 'AI_VECTOR_CORE', 100, 200, 15, 30, 'activation')
    if kind == 'dense':
        return [fia, oproj, ar, norm,
                m('aclnnMatmul_MatMulCommon_MatMulV2', 'MatMulV2', 'AI_CORE', 800, 1500, 0, 0, 'projection'),
                swiglu,
                m('aclnnMatmul_MatMulCommon_MatMulV2', 'MatMulV2', 'AI_CORE', 600, 1200, 0, 0, 'projection'),
                ar] + prep
    if kind == 'moe_dfc':
        return [fia, oproj, ar, norm, gate,
                m('DispatchFFNCombine', 'DispatchFFNCombine', 'MIX_AIC', 2500, 4000, 0, 0,
                  'expert_dispatch')] + prep
    a2a = (MOE_A2A, 'ep_comm', 'w', 300 if dec else 1500, 800 if dec else 3000)
    ops = [fia, oproj, ar, norm, (KCPU, 'other', 'a', 80, 200), gate,
           m('MoeInitRoutingV2', 'MoeInitRoutingV2', 'AI_VECTOR_CORE', 60, 120, 15, 30, 'moe_routing'),
           a2a,
           m('GroupedMatmul', 'GroupedMatmul', 'AI_CORE', 1500, 2500, 60, 120, 'expert_ffn'),
           swiglu,
           m('GroupedMatmul', 'GroupedMatmul', 'AI_CORE', 1000, 2000, 40, 90, 'expert_ffn'),
           a2a,
           m('MoeFinalizeRoutingV2', 'MoeFinalizeRoutingV2', 'AI_VECTOR_CORE', 80, 160, 20, 40,
             'post_moe_norm')]
    if kind == 'moe_gmm' and decode_last or dec and decode_last:
        ops.append(m('ArgMaxV2', 'ArgMaxV2', 'AI_VECTOR_CORE', 40, 80, 20, 40, 'sampling'))
    if dec and decode_last:
        ops.append(m('rejection_sample', 'rejection_sample', 'AI_VECTOR_CORE', 10, 30, 10, 30,
                     'sampling'))
    return ops + prep


EXPECTED_LABEL = {
    "sync": "possible_sync_or_h2d",
    "comm": "possible_comm_wait",
    "none": "possible_untraced_host_blocking",
    "launch": "possible_host_launch_lag",
    "sparse": "possible_python_serialization_or_lock",
    # named host causes (asc-attrib host_causes): the label follows from
    # coverage alone, the family says what the host did
    "compile": "possible_host_launch_lag",
    "dataloader": "possible_host_launch_lag",
    "gc": "possible_host_launch_lag",
    "h2d": "possible_sync_or_h2d",
    "h2dsync": "possible_sync_or_h2d",
    "item": "possible_sync_or_h2d",
}
# asc-attrib host cause family of the host events each cause writes
# (Level1; at Level0, without CANN events, compile leaves only an aten op:
# the dispatch of an ordinary aten op).  Families follow the call chain:
# a synchronisation under aten::item is an .item() sync, under aten::to a copy.
CAUSE_FAMILY = {
    "sync": "item_sync",
    "compile": "op_compile",
    "dataloader": "dataloader",
    "gc": "gc",
    "h2d": "h2d_copy",
    "h2dsync": "h2d_copy",
    "item": "item_sync",
}
# asc-attrib's attribution.compile_min_us: a shorter opCompile is a
# lookup in the compiled-op cache, counted as the dispatch around it.
COMPILE_MIN_NS = 500 * 1000
NEW_CAUSES = ("compile", "dataloader", "gc", "h2d", "h2dsync", "item")
PRELAUNCH_CAUSES = ("sync", "compile", "dataloader", "gc", "h2d", "h2dsync", "item")

L1_HEADER = ("Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,"
             "Start Time(us),Duration(us),Wait Time(us),Block Dim,Mix Block Dim,"
             "HF32 Eligible,Input Shapes,Input Data Types,Input Formats,Output Shapes,"
             "Output Data Types,Output Formats,Context ID,aicore_time(us),aic_total_cycles,"
             "aic_mac_time(us),aic_mac_ratio,aic_scalar_time(us),aic_scalar_ratio,"
             "aic_mte1_time(us),aic_mte1_ratio,aic_mte2_time(us),aic_mte2_ratio,"
             "aic_fixpipe_time(us),aic_fixpipe_ratio,aic_icache_miss_rate,aiv_time(us),"
             "aiv_total_cycles,aiv_vec_time(us),aiv_vec_ratio,aiv_scalar_time(us),"
             "aiv_scalar_ratio,aiv_mte2_time(us),aiv_mte2_ratio,aiv_mte3_time(us),"
             "aiv_mte3_ratio,aiv_icache_miss_rate,cube_utilization(%)")
L0_HEADER = "Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim"
STEP_TRACE_HEADER = ("Step,Computing,Communication(Not Overlapped),Overlapped,Communication,"
                     "Free,Stage,Bubble,Communication(Not Overlapped and Exclude Receive),"
                     "Preparing")
OPSTAT_HEADER = "OP Type,Core Type,Count,Total Time(us),Min Time(us),Avg Time(us),Max Time(us),Ratio(%)"
SP = "/usr/local/python3.9.2/lib/python3.9/site-packages"
GROUP = "10086375813364712345"


def ts_str(ns):
    return '%d.%03d' % divmod(ns, 1000)


def num(ns):
    """JSON number in us (a Python float repr, as torch_npu writes)."""
    return repr(ns / 1000)


def fmt_trim(ns):
    """CSV float like the real file: round(x, 3) repr ('6.54', '15.5', '0.0')."""
    i, f = divmod(ns, 1000)
    if f == 0:
        return '%d.0' % i
    return ('%d.%03d' % (i, f)).rstrip('0')


def fmt_fixed(ns):
    return '%d.%03d' % divmod(ns, 1000)


def jstr(s):
    return json.dumps(s, ensure_ascii=False)


def die(msg):
    sys.stderr.write('ascgen: %s\n' % msg)
    sys.exit(2)


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog='ascgen.py',
        description='Write a synthetic torch_npu-shaped Ascend profiler export '
                    '(OUTDIR/<name>/) and its ground truth (OUTDIR/<name>.truth.json).')
    p.add_argument('outdir', metavar='OUTDIR')
    p.add_argument('--steps', type=int, default=3)
    p.add_argument('--first-step', type=int, default=1)
    p.add_argument('--layers', type=int, default=4)
    p.add_argument('--kernels-per-layer', type=int, default=6)
    p.add_argument('--streams', type=int, default=1, help='compute streams (main stream is 2)')
    p.add_argument('--comm', action='store_true', help='one hcom_allReduce per step at the end')
    p.add_argument('--comm-type', default='COMMUNICATION', choices=['COMMUNICATION', 'HCCL'],
                   help='Accelerator Core value of communication rows (old files: HCCL)')
    p.add_argument('--aicpu', action='store_true', help='one AI_CPU kernel at the end of each layer')
    p.add_argument('--aicpu-masked', action='store_true',
                   help='one AI_CPU kernel (NonZero, stream 10) per layer, inside the layer\'s MatMul')
    p.add_argument('--wait-anchor', action='store_true',
                   help='the first kernel after each --bubble gap is a tiny ZerosLike (2-4 us)')
    p.add_argument('--host-threads', type=int, default=2)
    p.add_argument('--stack', action='store_true', help='record "Call stack" in host events')
    p.add_argument('--level', default='Level1', choices=['Level0', 'Level1'])
    p.add_argument('--bubble', action='append', default=[], metavar='STEP:LAYER:US:CAUSE')
    p.add_argument('--prelaunch-us', type=float, default=200)
    p.add_argument('--prelaunch-cause', choices=PRELAUNCH_CAUSES,
                   help='host events of this cause fill the prelaunch gap of every step')
    p.add_argument('--comm-exposed-us', type=float, metavar='N',
                   help='with --comm: the allReduce ends N us after the last compute kernel')
    p.add_argument('--hccl-tasks', metavar='SIZE[:LATE]',
                   help='with --comm: the HCCL tasks of each allReduce on a group of SIZE ranks '
                        '(trace_view.json, one Plane thread per peer); LATE: the peer rank this rank '
                        'waits for until 70%% of the op')
    p.add_argument('--dev-tasks', action='store_true',
                   help='with --bubble: device tasks that are no kernels inside each gap (Ascend '
                        'Hardware, stream 2): a MEMCPY_ASYNC over 20-70%% of it and an EVENT_WAIT '
                        'over 50-90%%; the truth lists them (device_tasks)')
    p.add_argument('--seed', type=int, default=1)
    p.add_argument('--name')
    p.add_argument('--mindspore', action='store_true')
    p.add_argument('--no-trace', action='store_true')
    p.add_argument('--no-step-id', action='store_true')
    p.add_argument('--unsorted', action='store_true')
    p.add_argument('--scale-kernels', type=int, default=0, metavar='N')
    p.add_argument('--scale-host', type=int, default=0, metavar='N')
    p.add_argument('--rank', type=int, default=0)
    p.add_argument('--rows-bad', action='store_true')
    p.add_argument('--fixed-decimals', action='store_true',
                   help='durations/waits always with 3 decimals (default: trimmed like real files)')
    p.add_argument('--base-us', type=int, default=1750000000000000,
                   help='epoch us of the first ProfilerStep start (before the seed jitter)')
    p.add_argument('-q', '--quiet', action='store_true', help='do not print the profile path')
    p.add_argument('--db', action='store_true',
                   help='also write the SQLite export (ascend_pytorch_profiler_<rank>.db) of the '
                        'same profile; kernel_details.csv then has Device_id (tests/gen/ascdb.py)')
    p.add_argument('--moe', metavar='DENSE:MOE:TRANS:DECODE',
                   help='MoE inference model: per pass DENSE dense layers, MOE MoE+DFC layers, '
                        'TRANS MoE+GMM transition layers (the last holds sampling), DECODE decode layers')
    p.add_argument('--passes', type=int, metavar='N',
                   help='with --moe: forward passes (one ProfilerStep each; default 1)')
    p.add_argument('--slow-op', metavar='TYPE:FACTOR',
                   help='every generic-layer kernel of op type TYPE lasts round(FACTOR x) its duration')
    p.add_argument('--drop-op', metavar='TYPE',
                   help='no generic-layer kernel of op type TYPE (later kernels start earlier)')
    p.add_argument('--op-truth', action='store_true',
                   help='write op_types {type: {calls, dur_ns}} in the truth')
    p.add_argument('--pfa-ifa', action='store_true',
                   help='with --moe: PromptFlashAttention (prefill, 2-5 ms) and IncreFlashAttention '
                        '(decode) instead of FusedInferAttentionScore')
    p.add_argument('--decode-tokens', metavar='N:GAP_US',
                   help='with --moe and decode layers: each step decodes N tokens, the decode layers '
                        'again after an idle gap of GAP_US (50000 or more: asc-fia cuts passes there); '
                        'the truth lists each token and gap (decode_tokens)')
    a = p.parse_args(argv)
    a.tokens = None
    if a.decode_tokens:
        try:
            a.tokens = [int(x) for x in a.decode_tokens.split(':')]
        except ValueError:
            a.tokens = []
        if not a.moe or len(a.tokens) != 2 or a.tokens[0] < 1 or a.tokens[1] < 0:
            die('bad --decode-tokens %r: want N:GAP_US, N >= 1, with --moe' % a.decode_tokens)
    if a.db and (a.no_trace or a.mindspore):
        die('--db needs the trace and torch_npu (no --no-trace, no --mindspore)')
    a.moe_shape = None
    if a.passes is not None and not a.moe:
        die('--passes needs --moe')
    if a.pfa_ifa and not a.moe:
        die('--pfa-ifa needs --moe')
    global PFA_IFA
    PFA_IFA = a.pfa_ifa
    if a.moe:
        try:
            a.moe_shape = [int(x) for x in a.moe.split(':')]
        except ValueError:
            a.moe_shape = []
        if len(a.moe_shape) != 4 or min(a.moe_shape) < 0 or sum(a.moe_shape) < 1:
            die('bad --moe %r: want DENSE:MOE:TRANS:DECODE, counts >= 0, at least one layer' % a.moe)
        if a.bubble or a.scale_kernels:
            die('--moe does not combine with --bubble or --scale-kernels')
        a.steps = a.passes if a.passes is not None else 1
        a.layers = sum(a.moe_shape)
    if a.steps < 1 or a.layers < 1 or a.kernels_per_layer < 1 or a.streams < 1:
        die('--steps, --layers, --kernels-per-layer and --streams must be >= 1')
    if a.host_threads < 1:
        die('--host-threads must be >= 1')
    if a.prelaunch_us < 60:
        die('--prelaunch-us must be >= 60 (the host must launch the first kernel)')
    if a.comm_exposed_us is not None and (not a.comm or a.moe or a.comm_exposed_us <= 0):
        die('--comm-exposed-us needs --comm (no --moe) and N > 0')
    a.slow = None
    if a.slow_op:
        t, _, f = a.slow_op.rpartition(':')
        try:
            a.slow = (t, float(f))
        except ValueError:
            t = ''
        if not t or a.slow[1] <= 0 or a.moe:
            die('bad --slow-op %r: want TYPE:FACTOR, FACTOR > 0, no --moe' % a.slow_op)
    if a.drop_op and a.moe:
        die('--drop-op does not combine with --moe')
    a.op_truth = a.op_truth or a.slow is not None or a.drop_op is not None
    a.hccl = None
    if a.hccl_tasks:
        try:
            v = [int(x) for x in a.hccl_tasks.split(':')]
        except ValueError:
            v = []
        if not a.comm or a.moe or a.no_trace or len(v) not in (1, 2) or v[0] < 2 or a.rank >= v[0] or \
                (len(v) == 2 and (v[1] == a.rank or not 0 <= v[1] < v[0])):
            die('bad --hccl-tasks %r: want SIZE[:LATE] with --comm (no --moe, a trace), '
                'SIZE > --rank, LATE another rank of the group' % a.hccl_tasks)
        a.hccl = (v[0], v[1] if len(v) == 2 else None)
    return a


class Ctx:
    pass


def main(argv):
    a = parse_args(argv)
    rng0 = random.Random(a.seed)
    c = Ctx()
    c.a = a
    # kernels per step, used by --scale-kernels
    kps = a.layers * a.kernels_per_layer
    if a.streams >= 2:
        kps += a.layers * ((a.kernels_per_layer + 1) // 3)
    if a.aicpu:
        kps += a.layers
    if a.aicpu_masked:
        kps += a.layers
    if a.comm:
        kps += 1
    if a.scale_kernels:
        a.steps = max(1, (a.scale_kernels + kps // 2) // kps)
    last_step = a.first_step + a.steps - 1

    bubbles = {}
    for spec in a.bubble:
        parts = spec.split(':')
        if len(parts) != 4:
            die('bad --bubble %r: want STEP:LAYER:US:CAUSE' % spec)
        try:
            st, ly, us = int(parts[0]), int(parts[1]), float(parts[2])
        except ValueError:
            die('bad --bubble %r: want STEP:LAYER:US:CAUSE' % spec)
        cause = parts[3]
        if cause not in EXPECTED_LABEL:
            die('bad --bubble cause %r (sync, comm, none, launch, sparse, compile, dataloader, gc, h2d, h2dsync, item)'
                % cause)
        if not a.first_step <= st <= last_step:
            die('--bubble step %d outside %d..%d' % (st, a.first_step, last_step))
        if not 1 <= ly < a.layers:
            die('--bubble layer %d outside 1..%d (a gap goes before a layer)' % (ly, a.layers - 1))
        if us <= 0:
            die('--bubble duration must be > 0')
        if (st, ly) in bubbles:
            die('two bubbles before step %d layer %d' % (st, ly))
        bubbles[(st, ly)] = (int(round(us * 1000)), cause)
    c.bubbles = bubbles

    ms = a.mindspore
    if a.name:
        name = a.name
    else:
        stamp = time.strftime('%Y%m%d%H%M%S', time.localtime()) + '%03d' % (int(time.time() * 1000) % 1000)
        name = 'gen_%d_%s_%s' % (os.getpid(), stamp, 'ascend_ms' if ms else 'ascend_pt')
    outdir = a.outdir
    prof = os.path.join(outdir, name)
    out = os.path.join(prof, 'ASCEND_PROFILER_OUTPUT')
    os.makedirs(out, exist_ok=True)
    c.out = out

    # ids
    c.pid = 2000000 + (a.seed % 1000) * 1000 + a.rank * 7 + 11
    c.main = c.pid
    c.dq = c.pid + 3198 if a.host_threads >= 2 else None
    c.bwd = c.pid + 8571 if a.host_threads >= 3 else None
    c.extra = [c.pid + 9000 + k for k in range(max(0, a.host_threads - 3))]
    dev = a.rank
    fp = c.pid << 10
    c.ah_pid = fp | (13 << 5) | dev
    c.cann_pid = fp | (7 << 5) | dev
    c.hccl_pid = fp | (15 << 5) | dev
    c.ov_pid = fp | (23 << 5) | dev
    c.gc_pid = fp | (1 << 5) | dev         # torch_npu "Python GC": sort index 1
    c.streams = [2] + [3 + k for k in range(a.streams - 1)]
    c.level1 = a.level == 'Level1'
    c.fmt = fmt_fixed if a.fixed_decimals else fmt_trim
    c.prelaunch = int(round(a.prelaunch_us * 1000))
    base = a.base_us * 1000 + rng0.randrange(0, 1000000) * 1000 + rng0.randrange(1000)

    gen = Generator(c, a, base, kps)
    gen.run(prof, name, outdir)


class Generator:
    def __init__(self, c, a, base, kps):
        self.c = c
        self.a = a
        self.base = base
        self.kps = kps
        self.seq = 0
        self.corr = 1
        self.conn = 1000
        self.pyid = 10
        self.task_ids = {}
        self.stack_cache = {}
        self.op_types = {}
        self.prev_end = None       # previous kernel end in sorted order (wait time)
        self.prev_busy_end = None  # for inter-step Free events
        self.first_row = True
        self.opstat = {}
        self.n_rows = 0
        self.n_py = {'cpu_op': 0, 'enqueue': 0, 'dequeue': 0, 'python_function': 0}
        self.n_cann = 0
        self.n_gc = 0
        self.prelaunch_truth = []
        self.devtask_truth = []
        self.comm_truth = []
        self.hccl_truth = []
        self.n_dev = 0
        self.n_flow = 0
        self.n_ov = 0
        self.n_meta = 0
        self.comm_n = 0
        self.origin = None
        # fillers per kernel (x1000) for --scale-host
        self.fill_k = 0
        self.fill_acc = 0
        if a.scale_host:
            per_k = 1 + (2 if c.dq else 0)
            base_total = a.steps * (self.kps * per_k + 2 + a.layers)
            nk = a.steps * self.kps
            if a.scale_host > base_total:
                self.fill_k = (a.scale_host - base_total) * 1000 // nk

    # ------------------------------------------------------------- helpers
    def stack_arg(self, key, frames):
        s = self.stack_cache.get(key)
        if s is None:
            s = ', "Call stack": ' + jstr(';\r\n'.join(frames))
            self.stack_cache[key] = s
        return s

    def op_stack(self, e, m):
        fn = e[0].split('::')[1].strip('_')
        return self.stack_arg(('op', e[0], m), [
            '%s/torch/nn/functional.py(%d): %s' % (SP, 2400 + 7 * m, fn),
            '%s/torch/nn/modules/module.py(1501): _call_impl' % SP,
            '/home/user/train.py(%d): forward' % (120 + m),
            '%s/torch/nn/modules/module.py(1501): _call_impl' % SP,
            '/home/user/train.py(210): train_step',
            '/home/user/train.py(260): main',
            '/home/user/train.py(268): <module>'])

    def simple_stack(self, what):
        return self.stack_arg(('s', what), [
            '%s/torch/_tensor.py(1012): %s' % (SP, what),
            '/home/user/train.py(214): train_step',
            '/home/user/train.py(260): main',
            '/home/user/train.py(268): <module>'])

    def step_stack(self):
        return self.stack_arg(('ps',), [
            '%s/torch/_ops.py(692): __call__' % SP,
            '%s/torch/autograd/profiler.py(631): __enter__' % SP,
            '%s/torch_npu/profiler/profiler.py(244): step' % SP,
            '/home/user/train.py(262): main',
            '/home/user/train.py(268): <module>'])

    def shape_arg(self, e):
        key = ('shape', e[0])
        s = self.stack_cache.get(key)
        if s is None:
            s = ', "Input Dims": %s, "Input type": %s' % (jstr(e[14]), jstr(e[15]))
            self.stack_cache[key] = s
        return s

    def family(self, cause, dur):
        """asc-attrib's host cause family of the events cause writes in a
        gap of dur ns."""
        if cause == 'compile' and not self.c.level1:
            return 'launch'     # no CANN events: only the aten op
        if cause == 'compile' and dur - 4 * US < COMPILE_MIN_NS:
            return 'launch'     # a compile this short is a cache lookup
        return CAUSE_FAMILY.get(cause)

    def taskid(self, stream):
        t = self.task_ids.get(stream, 11000 + 300 * stream)
        self.task_ids[stream] = t + 1
        return t

    # ------------------------------------------------------------- run
    def run(self, prof, name, outdir):
        c, a = self.c, self.a
        out = c.out
        tmpdir = os.path.join(out, '.ascgen.tmp')
        os.makedirs(tmpdir, exist_ok=True)
        parts = ['cpu', 'enq', 'deq', 'func', 'gc', 'dev', 'flow']
        self.pf = {}
        if not a.no_trace:
            for p in parts:
                self.pf[p] = open(os.path.join(tmpdir, p), 'w', encoding='utf-8', newline='')
        self.kf = open(os.path.join(out, 'kernel_details.csv'), 'w', encoding='utf-8', newline='')
        self.sf = open(os.path.join(out, 'step_trace_time.csv'), 'w', encoding='utf-8', newline='')
        self.tf = open(os.path.join(tmpdir, 'truth_steps'), 'w', encoding='utf-8', newline='')
        self.cf = None
        if a.comm:
            self.cf = open(os.path.join(out, 'communication.json'), 'w', encoding='utf-8', newline='')
            self.cf.write('{')
        step_col = ('Device_id,' if a.db else '') + ('' if a.no_step_id else ('Step ID,' if a.mindspore else 'Step Id,'))
        hdr = L1_HEADER if c.level1 else L0_HEADER
        self.kf.write(step_col + hdr + '\r\n')
        self.sf.write(STEP_TRACE_HEADER + '\r\n')
        self.bubble_truth = []
        self.last_row = None

        S = self.base
        nsteps = a.steps
        marker = None
        for si in range(nsteps):
            step = a.first_step + si
            S, marker = self.gen_step(si, step, S, si == nsteps - 1)
        self.end_ns = marker

        if a.rows_bad and self.last_row is not None:
            r = self.last_row.rstrip('\r\n')
            r = r[:r.rfind(',')]
            self.kf.write(r + '\r\n')
        self.kf.close()
        self.sf.close()
        self.tf.close()
        if self.cf:
            self.cf.write('}')
            self.cf.close()
        if c.level1:
            self.write_opstat()
        if not a.no_trace:
            for f in self.pf.values():
                f.close()
            self.write_trace(tmpdir)
        self.write_info(prof)
        if a.db:
            sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
            import ascdb
            ascdb.write(out, a.rank, a.rank)
        truth_path = os.path.join(outdir, name + '.truth.json')
        self.write_truth(truth_path, name, prof, tmpdir)
        shutil.rmtree(tmpdir)
        if not a.quiet:
            sys.stdout.write(prof + '\n')

    # ------------------------------------------------------------- one step
    def gen_step(self, si, step, S, is_last):
        c, a = self.c, self.a
        rng = random.Random(a.seed * 1000003 + si * 7919 + 17)
        rnd = rng.random

        def rr(lo, hi):
            return lo + int(rnd() * (hi - lo))
        L, M = a.layers, a.kernels_per_layer
        # ---- device timeline: kernel = [start, dur, stream, entry, layer, kind, m]
        ks = []
        t = S + c.prelaunch
        busy_end = t
        bubbles = []
        last_main = None
        for j in range(L):
            b = c.bubbles.get((step, j))
            if b and j > 0:
                g0 = busy_end
                g1 = g0 + b[0]
                bubbles.append((g0, g1, b[1], j))
                t = g1
                if a.wait_anchor:
                    d = rr(KANCHOR[12] * US, KANCHOR[13] * US)
                    ks.append([t, d, 2, KANCHOR, j, 0, 0])
                    busy_end = t + d
                    t = t + d + rr(1000, 5001)
            if a.moe_shape:
                break
            for m in range(M):
                e = KCAT[m % len(KCAT)]
                d = rr(e[12] * US, e[13] * US)
                # --slow-op / --drop-op: the same draws, so that every
                # other kernel keeps its duration and only shifts
                if a.slow and e[3] == a.slow[0]:
                    d = int(round(d * a.slow[1]))
                if a.drop_op == e[3]:
                    rr(1000, 5001)
                    continue
                k = [t, d, 2, e, j, 0, m]
                ks.append(k)
                last_main = k
                if a.aicpu_masked and m == 0:
                    d2 = min(KCPU2[13] * US, d - 20 * US)
                    ks.append([t + 10 * US, d2, 10, KCPU2, j, 1, M])
                if t + d > busy_end:
                    busy_end = t + d
                if len(c.streams) >= 2 and m % 3 == 1:
                    st = c.streams[1 + (m // 3) % (len(c.streams) - 1)]
                    off = d * rr(10, 40) // 100
                    d2 = max(30 * US, d * rr(30, 80) // 100)
                    ks.append([t + off, d2, st, K2ND, j, 0, m])
                    if t + off + d2 > busy_end:
                        busy_end = t + off + d2
                t = t + d + rr(1000, 5001)
            if a.aicpu:
                e = KCPU
                d = rr(e[12] * US, e[13] * US)
                ks.append([t, d, 2, e, j, 1, M])
                busy_end = max(busy_end, t + d)
                t = t + d + rr(1000, 5001)
        if a.moe_shape:
            ks, busy_end = self.moe_timeline(si, t, rr)
        elif a.comm:
            cs = last_main[0]
            d = rr(KCOMM[12] * US, KCOMM[13] * US)
            if a.comm_exposed_us is not None:
                # ends N us after the last compute kernel
                d = busy_end + int(round(a.comm_exposed_us * US)) - cs
            ks.append([cs, d, -1, KCOMM, L - 1, 2, M + 1])
            busy_end = max(busy_end, cs + d)
        ks.sort(key=lambda k: k[0])
        first = ks[0][0]
        if self.origin is None:
            self.origin = first
        tail = rr(30 * US, 150 * US)
        if is_last:
            marker_end = busy_end + tail
            S_next = None
            win_end = marker_end
        else:
            S_next = busy_end + tail
            marker_end = S_next - rr(1000, 3001)
            win_end = S_next

        # ---- host scheduling (backwards, per thread)
        hp = self.schedule_host(rng, S, marker_end, ks, bubbles)
        if hp is None:
            die('step %d: host launches do not fit before the first kernel; '
                'raise --prelaunch-us' % step)
        # ---- outputs
        self.emit_step(step, S, marker_end, ks, hp, bubbles, rng)
        self.emit_kernels(step, ks)
        self.emit_summary(step, S, marker_end, win_end, ks, bubbles, first, busy_end)
        return S_next, marker_end

    def moe_timeline(self, si, t, rr):
        """Kernels of one --moe forward pass from t: (ks, busy_end), and its truth."""
        a = self.a
        nd, nm, nt, ndec = a.moe_shape
        kinds = ['dense'] * nd + ['moe_dfc'] * nm + ['moe_gmm'] * nt + ['decode'] * ndec
        tr = getattr(self, 'moe_truth', None)
        if tr is None:
            tr = self.moe_truth = {
                'passes': a.steps, 'layers_per_pass': len(kinds),
                'shape': {'dense': nd, 'moe_dfc': nm, 'moe_gmm': nt, 'decode': ndec},
                'per_pass': [], 'layers_by_type': {}, 'kernels_by_type': {},
                'role_dur_sum_ns': {}, 'role_kernels': {},
                'fia_prefill_dur_sum_ns': 0, 'fia_decode_dur_sum_ns': 0}
            if PFA_IFA:
                tr['pfa_ifa'] = True
        pp = {'pass': si, 'layers': len(kinds), 'fia': len(kinds), 'fia_prefill': nd + nm + nt,
              'fia_decode': ndec, 'layers_by_type': {}, 'dfc': 0, 'grouped_matmul': 0,
              'gating': 0, 'alltoallv': 0, 'sampling_layers': 0, 'kernels': 0}
        ks = []
        busy_end = t
        for j, kind in enumerate(kinds):
            last = (kind == 'moe_gmm' and j == nd + nm + nt - 1) or (kind == 'decode' and j == len(kinds) - 1)
            ops = moe_ops(kind, last)
            pp['layers_by_type'][kind] = pp['layers_by_type'].get(kind, 0) + 1
            tr['layers_by_type'][kind] = tr['layers_by_type'].get(kind, 0) + 1
            rs = tr['role_dur_sum_ns'].setdefault(kind, {})
            rk = tr['role_kernels'].setdefault(kind, {})
            for m, (e, role, how, lo, hi) in enumerate(ops):
                d = rr(lo * US, hi * US)
                if si == 0 and j == 0 and lo >= 50:
                    d = d * 3 // 2                      # warm-up: the first layer is slower
                if e is MOE_FIA or e is MOE_PFA:
                    d = d * (100 + 3 * si) // 100       # drift: FIA grows with the KV cache
                    tr['fia_prefill_dur_sum_ns'] += d
                elif e is MOE_FIA_DEC or e is MOE_IFA:
                    tr['fia_decode_dur_sum_ns'] += d
                kindn = 2 if how in 'cw' else (1 if how == 'a' else 0)
                ks.append([t, d, -1 if kindn == 2 else (5 if kindn == 1 else 2), e, j, kindn, m])
                busy_end = max(busy_end, t + d)
                rs[role] = rs.get(role, 0) + d
                rk[role] = rk.get(role, 0) + 1
                tr['kernels_by_type'][kind] = tr['kernels_by_type'].get(kind, 0) + 1
                pp['kernels'] += 1
                op = e[3]
                pp['dfc'] += op == 'DispatchFFNCombine'
                pp['grouped_matmul'] += op == 'GroupedMatmul'
                pp['gating'] += op == 'MoeGatingTopK'
                pp['alltoallv'] += op == 'hcom_alltoallv_'
                if how == 'm' or how == 'w':
                    t = t + d + rr(1000, 3001)
                else:
                    t = t + rr(1000, 3001)
            pp['sampling_layers'] += last
        if a.tokens:
            t, busy_end = self.moe_tokens(si, t, busy_end, ks, rr, kinds, tr)
        tr['per_pass'].append(pp)
        return ks, busy_end

    def moe_tokens(self, si, t, busy_end, ks, rr, kinds, tr):
        """--decode-tokens: the decode layers again per token after a gap;
        the truth per step: each token's kernels, kernel time and span
        (epoch ns, as text), and each gap from a token's last kernel end
        to the next one's start."""
        n, gap = self.a.tokens
        first = len(kinds) - self.a.moe_shape[3]
        if first == len(kinds):
            die('--decode-tokens needs decode layers (--moe ...:DECODE)')
        toks = []

        def token(lo):
            sel = ks[lo:]
            toks.append({'kernels': len(sel), 'kernel_sum_ns': sum(x[1] for x in sel),
                         'start_ns': sel[0][0], 'end_ns': max(x[0] + x[1] for x in sel)})
        lo = next(i for i, x in enumerate(ks) if x[4] >= first)
        token(lo)
        for _ in range(n - 1):
            t = max(t, busy_end) + gap * US
            lo = len(ks)
            for j in range(first, len(kinds)):
                for m, (e, role, how, klo, khi) in enumerate(moe_ops('decode', j == len(kinds) - 1)):
                    d = rr(klo * US, khi * US)
                    kindn = 2 if how in 'cw' else (1 if how == 'a' else 0)
                    ks.append([t, d, -1 if kindn == 2 else (5 if kindn == 1 else 2), e, j, kindn, m])
                    busy_end = max(busy_end, t + d)
                    t = t + (d if how in 'mw' else 0) + rr(1000, 3001)
            token(lo)
        tr.setdefault('decode_tokens', []).append({
            'tokens': [{'kernels': x['kernels'], 'kernel_sum_ns': x['kernel_sum_ns'],
                        'start_abs_ns': str(x['start_ns']), 'end_abs_ns': str(x['end_ns'])} for x in toks],
            'gaps_ns': [toks[i + 1]['start_ns'] - toks[i]['end_ns'] for i in range(len(toks) - 1)]})
        return t, busy_end

    def schedule_host(self, rng, S, marker_end, ks, bubbles):
        c, a = self.c, self.a
        L = a.layers
        hgap = 3 * US
        windows = sorted(((g0 - 3 * US, g1 + 3 * US) for g0, g1, _, _ in bubbles), reverse=True)
        forced = {}
        for g0, g1, _, j in bubbles:
            forced[j] = min(forced.get(j, g0), g0 - 3 * US)
        # random draws are made once and reused across rescheduling rounds
        draws = []
        rnd = rng.random

        def rr(lo, hi):
            return lo + int(rnd() * (hi - lo))
        for k in ks:
            nf = 0
            if self.fill_k:
                self.fill_acc += self.fill_k
                nf = self.fill_acc // 1000
                self.fill_acc -= nf * 1000
            draws.append((rr(5 * US, 40 * US),      # launch latency
                          rr(12 * US, 25 * US),     # dequeue dur
                          rr(10 * US, 20 * US),     # cpu op dur
                          rr(2 * US, 5 * US),       # enqueue dur
                          [rr(1 * US, 3 * US) for _ in range(nf)]))

        def place(deadline, dur, lim, bound):
            e = min(deadline, lim)
            if bound is not None and bound < e:
                e = bound
            for w0, w1 in windows:
                if e - dur < w1 and e > w0:
                    e = w0
            return e - dur, e

        for _round in range(8):
            lim = {}
            for tid in (c.main, c.dq, c.bwd):
                if tid is not None:
                    lim[tid] = marker_end - 3 * US
            res = [None] * len(ks)
            for i in range(len(ks) - 1, -1, -1):
                k = ks[i]
                lat, dqd, cd, ed, fills = draws[i]
                j = k[4]
                ot = c.bwd if (c.bwd is not None and (j >= (L + 1) // 2 and L > 1 or k[5] == 2)) else c.main
                bound = forced.get(j) if ot == c.main else None
                if c.dq is not None:
                    dq0, dq1 = place(k[0] - lat, dqd, lim[c.dq], None)
                    lim[c.dq] = dq0 - hgap
                    c0, c1 = place(dq0, cd, lim[ot], bound)
                else:
                    dq0 = dq1 = None
                    c0, c1 = place(k[0] - lat, cd, lim[ot], bound)
                lim[ot] = c0 - hgap
                fl = []
                for fd in fills:
                    f0, f1 = place(lim[ot], fd, lim[ot], bound)
                    lim[ot] = f0 - hgap
                    fl.append((f0, f1))
                res[i] = (ot, c0, c1, dq0, dq1, ed, fl)
            if min(v for v in lim.values()) < S + 5 * US:
                return None
            # layer spans on the main thread must not cover a bubble window
            spans = {}
            for r, k in zip(res, ks):
                if r[0] != c.main:
                    continue
                lo = min([r[1]] + [f[0] for f in r[6]])
                sp = spans.get(k[4])
                spans[k[4]] = (lo if sp is None else min(sp[0], lo), r[2] if sp is None else max(sp[1], r[2]))
            bad = False
            for j, (lo, hi) in spans.items():
                for w0, w1 in windows:
                    if lo - US < w1 and hi + US > w0 and forced.get(j, hi + 1) > w0:
                        forced[j] = w0
                        bad = True
            if not bad:
                return (res, spans)
        return None

    # ------------------------------------------------------------- trace
    def emit_step(self, step, S, marker_end, ks, hp, bubbles, rng):
        c, a = self.c, self.a
        res, spans = hp
        stack = a.stack
        py_cpu = []     # (end, text)
        enq = []
        deq = []
        func = []
        dev = []
        flow = []
        pid = c.pid
        ms = a.mindspore
        level1 = c.level1
        n_cann = 0

        def cpu_op(name, tid, t0, t1, args_extra='', seq=-1, fwd=0):
            py_cpu.append((t1, '{"ph": "X", "name": "%s", "pid": %d, "tid": %d, "ts": "%s", "dur": %s, '
                               '"cat": "cpu_op", "args": {"Sequence number": %d, "Fwd thread id": %d%s}}'
                           % (name, pid, tid, ts_str(t0), num(t1 - t0), seq, fwd, args_extra)))

        def cann_x(api, tid, t0, t1, mode, conn, level='acl', ident=None, item='0'):
            dev.append('{"name": "%s", "pid": %d, "tid": %d, "ts": "%s", "dur": %s, "args": {"Thread Id": %d, '
                       '"Mode": "%s", "level": "%s", "id": "%s", "item_id": "%s", "connection_id": %d}, "ph": "X"}'
                       % (api, c.cann_pid, tid, ts_str(t0), num(t1 - t0), tid, mode, level,
                          ident if ident is not None else api.split('@', 1)[1], item, conn))

        for r, k in zip(res, ks):
            ot, c0, c1, dq0, dq1, ed, fl = r
            e = k[3]
            kind = k[5]
            self.seq += 1
            fwd = c.main if ot != c.main else 0
            extra = self.shape_arg(e)
            if stack:
                extra += self.op_stack(e, k[6])
            cpu_op(e[0], ot, c0, c1, extra, self.seq, fwd)
            for f0, f1 in fl:
                self.seq += 1
                cpu_op('aten::empty', ot, f0, f1, ', "Input Dims": "[]", "Input type": "IntList"', self.seq, fwd)
            conn = self.conn
            self.conn += 1
            kname = e[2] % (self.comm_n,) if kind == 2 else e[2]
            k.append(conn)            # k[7]
            k.append(kname)           # k[8]
            api = e[1]
            mode = 'HOST_HCCL' if kind == 2 else ('ACL_OP' if kind == 1 else 'ACL_NN')
            if c.dq is not None:
                corr = self.corr
                self.corr += 1
                e0 = c1 - US - ed
                e1 = c1 - US
                enq.append('{"ph": "X", "name": "Enqueue", "pid": %d, "tid": %d, "ts": "%s", "dur": %s, '
                           '"cat": "enqueue", "args": {"correlation_id": %d}}, '
                           '{"ph": "s", "bp": "e", "name": "enqueue_to_dequeue", "id": %d, "pid": %d, '
                           '"tid": %d, "ts": "%s", "cat": "async_task_queue"}'
                           % (pid, ot, ts_str(e0), num(ed), corr, corr, pid, ot, ts_str(e0)))
                deq.append('{"ph": "X", "name": "Dequeue@%s", "pid": %d, "tid": %d, "ts": "%s", "dur": %s, '
                           '"cat": "dequeue", "args": {"correlation_id": %d}}, '
                           '{"ph": "f", "bp": "e", "name": "enqueue_to_dequeue", "id": %d, "pid": %d, '
                           '"tid": %d, "ts": "%s", "cat": "async_task_queue"}'
                           % (api if kind != 2 else 'HcclAllreduce', pid, c.dq, ts_str(dq0), num(dq1 - dq0),
                              corr, corr, pid, c.dq, ts_str(dq0)))
                self.n_py['enqueue'] += 1
                self.n_py['dequeue'] += 1
                a0, a1, ctid = dq0 + US, dq1 - US, c.dq
            else:
                a0, a1, ctid = c0 + US, c1 - US, c.main
            # CANN api + launch; HostToDevice flow from the launch
            n0 = a0 + (a1 - a0) // 2
            n1 = a1 - 500
            if level1:
                cann_x('AscendCL@' + api, ctid, a0, a1, mode, conn - 1000 + 900)
                if kind == 2:
                    cann_x('Hccl@Launch_Ffts', ctid, n0, n1, 'master', conn, level='hccl', ident='0',
                           item='Launch_Ffts')
                else:
                    cann_x('Node@launch', ctid, n0, n1, 'launch', conn, level='node', ident='0', item=kname)
                n_cann += 2
            if kind == 2:
                dpid, dtid = c.hccl_pid, 0
            else:
                dpid, dtid = c.ah_pid, k[2]
            dev.append('{"name": "HostToDevice%d", "ph": "s", "cat": "HostToDevice", "id": "%d", "pid": %d, '
                       '"tid": %d, "ts": "%s"}' % (conn, conn, c.cann_pid, ctid, ts_str(n0)))
            kts = ts_str(k[0])
            if kind == 2:
                dev.append('{"name": "%s", "pid": %d, "tid": 0, "ts": "%s", "dur": %s, "args": {"connection_id": %d, '
                           '"model id": 4294967295, "data_type": "FP32", "alg_type": "MESH-RING", "count": 4097000}, '
                           '"ph": "X"}' % (kname, dpid, kts, num(k[1]), conn))
                if a.hccl:
                    dev.extend(self.hccl_tasks(k, kname))
            else:
                tid_ = self.taskid(k[2])
                k.append(tid_)        # k[9]
                dev.append('{"name": "%s", "pid": %d, "tid": %d, "ts": "%s", "dur": %s, "args": {"Model Id": 4294967295, '
                           '"Task Type": "%s", "Physic Stream Id": %d, "Task Id": %d, "Batch Id": 0, '
                           '"Subtask Id": 4294967295, "connection_id": %d}, "ph": "X"}'
                           % (kname, dpid, dtid, kts, num(k[1]), 'AI_CPU' if kind == 1 else 'AI_CORE',
                              k[2], tid_, conn))
            dev.append('{"name": "HostToDevice%d", "ph": "f", "id": "%d", "ts": "%s", "cat": "HostToDevice", '
                       '"pid": %d, "tid": %d, "bp": "e"}' % (conn, conn, kts, dpid, dtid))
            flow.append('{"ph": "s", "bp": "e", "name": "%s", "id": %d, "pid": %d, "tid": %d, "ts": "%s", '
                        '"cat": "async_npu"}, {"ph": "f", "bp": "e", "name": "%s", "id": %d, "pid": %d, "tid": %d, '
                        '"ts": "%s", "cat": "async_npu"}'
                        % ('mindspore_to_npu' if ms else 'torch_to_npu', k[0], pid, ot, ts_str(c0),
                           'mindspore_to_npu' if ms else 'torch_to_npu', k[0], dpid, dtid, kts))
            if kind == 2:
                self.comm_n += 1
        gcs = []

        def cover(g0, g1, cause, rng):
            """Host events of cause covering the idle gap [g0, g1)."""
            nonlocal n_cann
            if cause == 'sync':
                cpu_op('aten::item', c.main, g0 - US, g1 + US,
                       self.simple_stack('item') if stack else '')
                if level1:
                    cann_x('AscendCL@aclrtSynchronizeStream', c.main, g0 - 500, g1 + 500, 'ACL_RTS', self.conn)
                    self.conn += 1
                    n_cann += 1
            elif cause == 'comm':
                cpu_op('c10d::allreduce_', c.main, g0 - US, g1 + US,
                       self.simple_stack('allreduce') if stack else '')
                if level1:
                    cann_x('AscendCL@hcom_allReduce_', c.main, g0 - 500, g1 + 500, 'HOST_HCCL', self.conn,
                           item='hcom_allReduce_')
                    self.conn += 1
                    n_cann += 1
            elif cause == 'launch':
                gap = g1 - g0
                n = max(2, min(8, gap // (40 * US)))
                other = c.bwd or c.dq or c.main
                for q in range(n):
                    p0 = g0 - US if q == 0 else g0 + gap * q // n
                    p1 = g1 + US if q == n - 1 else g0 + gap * (q + 1) // n
                    self.seq += 1
                    cpu_op('aten::add' if q % 2 == 0 else 'aten::mul', c.main if q % 2 == 0 else other,
                           p0, p1, self.op_stack(KCAT[1], 1) if stack else '', self.seq)
            elif cause == 'sparse':
                gap = g1 - g0
                nfrag = rng.randrange(3, 6)
                cover = gap * rng.randrange(50, 100) // 1000
                fl = max(1, cover // nfrag)
                for q in range(nfrag):
                    mid = g0 + gap * (2 * q + 1) // (2 * nfrag)
                    self.seq += 1
                    cpu_op(('aten::detach', 'aten::view', 'aten::slice')[q % 3], c.main,
                           mid - fl // 2, mid - fl // 2 + fl, self.simple_stack('detach') if stack else '',
                           self.seq)
            elif cause == 'compile':
                # an aten op whose CANN side compiles: aclopCompileAndExecute
                # covers the gap, its opCompile child (a real compile, not a
                # cache lookup) nearly all of it
                self.seq += 1
                cpu_op('aten::nonzero', c.main, g0 - US, g1 + US,
                       self.simple_stack('nonzero') if stack else '', self.seq)
                if level1:
                    cann_x('AscendCL@aclopCompileAndExecute', c.main, g0 - 500, g1 + 500, 'ACL_OP', self.conn)
                    self.conn += 1
                    cann_x('AscendCL@opCompile', c.main, g0 + 2 * US, max(g0 + 3 * US, g1 - 2 * US),
                           'ACL_OP', self.conn)
                    self.conn += 1
                    n_cann += 2
            elif cause == 'dataloader':
                # DataLoader __next__: python functions around the enumerate op
                self.seq += 1
                cpu_op('enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__', c.main,
                       g0 - US, g1 + US, self.simple_stack('__next__') if stack else '', self.seq)
                outer = self.pyid
                func.append('{"ph": "X", "name": "torch/utils/data/dataloader.py(625): __next__", "pid": %d, '
                            '"tid": %d, "ts": "%s", "dur": %s, "cat": "python_function", "args": {"Python id": %d, '
                            '"Python parent id": %d}}' % (pid, c.main, ts_str(g0 - 2 * US), num(g1 - g0 + 4 * US),
                                                         outer, outer - 1))
                func.append('{"ph": "X", "name": "torch/utils/data/dataloader.py(1298): _next_data", "pid": %d, '
                            '"tid": %d, "ts": "%s", "dur": %s, "cat": "python_function", "args": {"Python id": %d, '
                            '"Python parent id": %d}}' % (pid, c.main, ts_str(g0 + (g1 - g0) // 10),
                                                         num((g1 - g0) * 8 // 10), outer + 1, outer))
                self.pyid += 2
            elif cause == 'gc':
                # torch_npu's "Python GC" process: one GC X event, tid = the OS pid
                gcs.append('{"ph": "X", "name": "GC", "pid": %d, "tid": %d, "ts": "%s", "dur": %s, "cat": "GC", '
                           '"args": {}}' % (c.gc_pid, c.pid, ts_str(g0 - US), num(g1 - g0 + 2 * US)))
            elif cause in ('h2dsync', 'item'):
                # the real shapes: the batch copy aten::to > _to_copy > copy_,
                # or .item() aten::item > _local_scalar_dense, each nested 1 us
                # deeper, and (Level1) the runtime's stream sync inside
                chain = (('aten::to', 'aten::_to_copy', 'aten::copy_') if cause == 'h2dsync'
                         else ('aten::item', 'aten::_local_scalar_dense'))
                for q, op in enumerate(chain):
                    cpu_op(op, c.main, g0 - (len(chain) - q) * US, g1 + (len(chain) - q) * US,
                           self.simple_stack(op[6:]) if stack else '')
                if level1:
                    cann_x('AscendCL@aclrtSynchronizeStreamWithTimeout', c.main, g0 - 500, g1 + 500,
                           'ACL_RTS', self.conn)
                    self.conn += 1
                    n_cann += 1
                elif cause == 'h2dsync':
                    # Level0 has no CANN calls, but torch_npu records the
                    # copy's own op (a real Level0 capture has it)
                    cpu_op('acl_memcpy_host_to_device', c.main, g0 - 500, g1 + 500, '')
            elif cause == 'h2d':
                cpu_op('aten::to', c.main, g0 - US, g1 + US, self.simple_stack('to') if stack else '')
                if level1:
                    cann_x('AscendCL@aclrtMemcpy', c.main, g0 - 500, g1 + 500, 'ACL_RTS', self.conn)
                    self.conn += 1
                    n_cann += 1
                else:
                    cpu_op('acl_memcpy_host_to_device', c.main, g0 - 500, g1 + 500, '')

        # bubble covering host events
        for g0, g1, cause, j in bubbles:
            cover(g0, g1, cause, rng)
            if a.dev_tasks:
                self.dev_tasks(dev, step, g0, g1)
        # modules: Model_0 contains per-layer Block_j spans on the main thread
        main_lo = [v[0] for v in spans.values()]
        main_hi = [v[1] for v in spans.values()]
        for g0, g1, _, _ in bubbles:
            main_lo.append(g0 - US)
            main_hi.append(g1 + US)
        if a.prelaunch_cause:
            p0, p1 = S + 3 * US, min(main_lo) - 5 * US
            if p1 - p0 < 20 * US:
                die('step %d: no room for --prelaunch-cause before the first host op; '
                    'raise --prelaunch-us' % step)
            cover(p0, p1, a.prelaunch_cause, rng)
            o = self.origin
            self.prelaunch_truth.append({
                'step': step, 'start_rel_ns': p0 - o, 'end_rel_ns': p1 - o, 'dur_ns': p1 - p0,
                'cause': a.prelaunch_cause, 'family': self.family(a.prelaunch_cause, p1 - p0)})
        m0 = max(S + US, min(main_lo) - 3 * US)
        m1 = min(marker_end - US, max(main_hi) + 3 * US)
        model_id = self.pyid
        self.pyid += 1
        func.append('{"ph": "X", "name": "nn.Module: Model_0", "pid": %d, "tid": %d, "ts": "%s", "dur": %s, '
                    '"cat": "python_function", "args": {"Python id": %d, "Python parent id": %d, '
                    '"Python module id": 0}}' % (pid, c.main, ts_str(m0), num(m1 - m0), model_id, model_id - 1))
        for j in sorted(spans):
            lo, hi = spans[j]
            func.append('{"ph": "X", "name": "nn.Module: Block_%d", "pid": %d, "tid": %d, "ts": "%s", "dur": %s, '
                        '"cat": "python_function", "args": {"Python id": %d, "Python parent id": %d, '
                        '"Python module id": %d}}' % (j, pid, c.main, ts_str(lo - US), num(hi - lo + 2 * US),
                                                     self.pyid, model_id, j + 1))
            self.pyid += 1
        cpu_op('ProfilerStep#%d' % step, c.main, S, marker_end, self.step_stack() if stack else '')
        # overlap analysis
        ov = self.overlap(ks)
        for name, tid, t0, t1 in ov:
            dev.append('{"name": "%s", "pid": %d, "tid": %d, "ts": "%s", "dur": %s, "ph": "X"}'
                       % (name, c.ov_pid, tid, ts_str(t0), num(t1 - t0)))
        if self.prev_busy_end is not None:
            dev.append('{"name": "Free", "pid": %d, "tid": 3, "ts": "%s", "dur": %s, "ph": "X"}'
                       % (c.ov_pid, ts_str(self.prev_busy_end), num(ks[0][0] - self.prev_busy_end)))
            self.n_ov += 1
        self.n_ov += len(ov)
        self.prev_busy_end = max(k[0] + k[1] for k in ks)
        py_cpu.sort(key=lambda x: x[0])
        self.n_py['cpu_op'] += len(py_cpu)
        self.n_py['python_function'] += len(func)
        self.n_gc += len(gcs)
        self.n_cann += n_cann
        self.n_dev += len(ks)
        self.n_flow += 2 * len(ks) + (2 * len(enq))
        if not a.no_trace:
            pf = self.pf
            pf['cpu'].write(''.join(', ' + x[1] for x in py_cpu))
            if enq:
                pf['enq'].write(''.join(', ' + x for x in enq))
                pf['deq'].write(''.join(', ' + x for x in deq))
            pf['func'].write(''.join(', ' + x for x in func))
            if gcs:
                pf['gc'].write(''.join(', ' + x for x in gcs))
            pf['dev'].write(''.join(', ' + x for x in dev))
            pf['flow'].write(''.join(', ' + x for x in flow))

    def dev_tasks(self, dev, step, g0, g1):
        """An input copy and an event wait inside the idle gap [g0, g1)."""
        c, o, d = self.c, self.origin, (g1 - g0) // 10
        for name, tt, t0, t1 in (('MEMCPY_ASYNC', 'PCIE_DMA_SQE', g0 + 2 * d, g0 + 7 * d),
                                 ('EVENT_WAIT', 'EVENT_WAIT_SQE', g0 + 5 * d, g0 + 9 * d)):
            dev.append('{"name": "%s", "pid": %d, "tid": 2, "ts": "%s", "dur": %s, "args": {"Model Id": '
                       '4294967295, "Task Type": "%s", "Physic Stream Id": 2, "Task Id": %d, "Batch Id": 0, '
                       '"Subtask Id": 4294967295}, "ph": "X"}'
                       % (name, c.ah_pid, ts_str(t0), num(t1 - t0), tt, self.taskid(2)))
            self.devtask_truth.append({'step': step, 'name': name, 'task_type': tt, 'stream': 2,
                                       'start_rel_ns': t0 - o, 'end_rel_ns': t1 - o})
            self.n_dev += 1

    def overlap(self, ks):
        """Overlap Analysis events of one step: (name, tid, t0, t1)."""
        comp = []
        comm = []
        for k in ks:
            (comm if k[5] == 2 else comp).append((k[0], k[0] + k[1]))
        cu = merge(comp)
        mu = merge(comm)
        allu = merge(comp + comm)
        ev = [('Computing', 0, s, e) for s, e in cu]
        ev += [('Communication', 1, s, e) for s, e in mu]
        ev += [('Communication(Not Overlapped)', 2, s, e) for s, e in subtract(mu, cu)]
        ev += [('Free', 3, allu[i][1], allu[i + 1][0]) for i in range(len(allu) - 1)]
        ev.sort(key=lambda x: x[2])
        return ev

    # ------------------------------------------------------------- kernel csv
    def emit_kernels(self, step, ks):
        c, a = self.c, self.a
        fmt = c.fmt
        level1 = c.level1
        ms = a.mindspore
        stepc = ('%d,' % a.rank if a.db else '') + ('' if a.no_step_id else '%d,' % step)
        rows = []
        for k in ks:          # sorted by start: wait time
            st, d, stream, e, j, kind = k[0], k[1], k[2], k[3], k[4], k[5]
            if self.first_row:
                wait = '0'
                self.first_row = False
            else:
                w = st - self.prev_end
                wait = fmt(w if w > 0 else 0)
            self.prev_end = st + d
            name = k[8]
            if ms and kind != 2:
                name = e[16] + '/' + name
            core = a.comm_type if kind == 2 else e[4]
            if not level1:
                row = '%s%s,N/A,%s,%s\t,%s,%s,0\r\n' % (stepc, name, core if kind == 2 else 'N/A',
                                                       ts_str(st), fmt(d), wait)
            elif kind == 2:
                row = ('%s4294967295,N/A,N/A,%s,%s,N/A,%s,%s\t,%s,%s,0,%s\r\n'
                       % (stepc, name, e[3], core, ts_str(st), fmt(d), wait, ','.join(['N/A'] * 34)))
            else:
                row = ('%s4294967295,%d,%d,%s,%s,dynamic,%s,%s\t,%s,%s,%d,0,NO,"""%s""",%s,%s,"""%s""",%s,%s,N/A,%s\r\n'
                       % (stepc, k[9], stream, name, e[3], core, ts_str(st), fmt(d), wait, e[5],
                          e[6], e[7], e[8], e[9], e[10], e[11], self.pmu(kind, e, d)))
            rows.append(row)
            ot = self.op_types.setdefault(e[3], {'calls': 0, 'dur_ns': 0})
            ot['calls'] += 1
            ot['dur_ns'] += d
            if level1 and kind != 2:
                key = (e[3], e[4])
                s = self.opstat.get(key)
                if s is None:
                    self.opstat[key] = [1, d, d, d]
                else:
                    s[0] += 1
                    s[1] += d
                    if d < s[2]:
                        s[2] = d
                    if d > s[3]:
                        s[3] = d
        self.n_rows += len(rows)
        self.last_row = rows[-1]
        if a.unsorted and len(rows) > 1:
            random.Random(step).shuffle(rows)
            if rows == sorted(rows, key=lambda r: r):  # pragma: no cover
                rows.reverse()
        self.kf.write(''.join(rows))

    def pmu(self, kind, e, d):
        fmt = self.c.fmt
        if kind == 1:
            return ','.join(['N/A'] * 25)
        t = d * 97 // 100
        if e[4] == 'AI_CORE':
            cyc = t * 18 // 10
            return ('%s,%d,%s,0.42,%s,0.21,%s,0.35,%s,0.88,%s,0.07,0.001,'
                    '0.0,0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,%s' % (
                        fmt(t), cyc, fmt(t * 42 // 100), fmt(t * 21 // 100), fmt(t * 35 // 100),
                        fmt(t * 88 // 100), fmt(t * 7 // 100), '65.3'))
        cyc = t * 18 // 10
        return ('0.0,0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,'
                '%s,%d,%s,0.31,%s,0.12,%s,0.55,%s,0.48,0.021,0' % (
                    fmt(t), cyc, fmt(t * 31 // 100), fmt(t * 12 // 100), fmt(t * 55 // 100),
                    fmt(t * 48 // 100)))

    # ------------------------------------------------------------- summaries
    def emit_summary(self, step, S, marker_end, win_end, ks, bubbles, first, busy_end):
        c, a = self.c, self.a
        o = self.origin
        ivs = [(k[0], k[0] + k[1]) for k in ks]
        u = merge(ivs)
        gaps = [u[i + 1][0] - u[i][1] for i in range(len(u) - 1)]
        busy = sum(e - s for s, e in u)
        cu = merge([(k[0], k[0] + k[1]) for k in ks if k[5] != 2])
        mu = merge([(k[0], k[0] + k[1]) for k in ks if k[5] == 2])
        comp = sum(e - s for s, e in cu)
        commt = sum(e - s for s, e in mu)
        cno = sum(e - s for s, e in subtract(mu, cu))
        free = sum(gaps)
        prep = first - S
        counts = {}
        for k in ks:
            core = a.comm_type if k[5] == 2 else k[3][4]
            counts[core] = counts.get(core, 0) + 1
        # step_trace_time.csv
        self.sf.write('%d,%s,%s,%s,%s,%s,%s,0,%s,%s\r\n' % (
            step, num(comp), num(cno), num(commt - cno), num(commt), num(free),
            num(comp + cno + free), num(cno), num(prep)))
        # communication.json
        if self.cf is not None and mu:
            if a.comm_exposed_us is not None:
                # one allReduce: it waits for the peer while this rank computes
                # (the overlapped part), then transits (0.9 of the exposed part)
                ck = [k for k in ks if k[5] == 2][0]
                fig = {'exposed_ns': cno, 'elapse_ns': ck[1], 'wait_ns': ck[1] - cno,
                       'sync_ns': ck[1] - cno, 'transit_ns': cno * 9 // 10}
                fig['idle_ns'] = fig['elapse_ns'] - fig['wait_ns'] - fig['transit_ns']
                self.write_comm(step, [ck], fig)
                busy_comp = max(k[0] + k[1] for k in ks if k[5] != 2)
                self.comm_truth.append(dict(
                    step=step, op=ck[8], start_rel_ns=ck[0] - o, end_rel_ns=ck[0] + ck[1] - o,
                    past_compute_end_ns=ck[0] + ck[1] - busy_comp, overlapped_ns=commt - cno, **fig))
            else:
                self.write_comm(step, [k for k in ks if k[5] == 2])
        binfo = []
        for g0, g1, cause, j in bubbles:
            binfo.append({'step': step, 'layer': j, 'start_rel_ns': g0 - o, 'end_rel_ns': g1 - o,
                          'dur_ns': g1 - g0, 'start_us': ts_str(g0), 'end_us': ts_str(g1),
                          'cause': cause, 'expected_label': EXPECTED_LABEL[cause]})
            if cause in NEW_CAUSES:
                binfo[-1]['family'] = self.family(cause, g1 - g0)
        self.bubble_truth.extend(binfo)
        st = {
            'step': step,
            'marker_start_rel_ns': S - o, 'marker_end_rel_ns': marker_end - o,
            'marker_start_us': ts_str(S), 'marker_end_us': ts_str(marker_end),
            'window_end_rel_ns': win_end - o, 'window_end_us': ts_str(win_end),
            'first_kernel_rel_ns': first - o, 'last_busy_end_rel_ns': busy_end - o,
            'kernels': len(ks), 'kernel_counts': counts,
            'kernel_dur_sum_ns': sum(k[1] for k in ks),
            'busy_union_ns': busy,
            'computing_ns': comp, 'communication_ns': commt, 'comm_not_overlapped_ns': cno,
            'prelaunch_gap_ns': prep,
            'tail_gap_ns': win_end - busy_end,
            'internal_bubble_total_ns': free,
            'largest_internal_bubble_ns': max(gaps) if gaps else 0,
            'bubble_count': len(gaps),
            'layers': a.layers,
            'injected_bubbles': len(bubbles),
            'layer_kernels': [sum(1 for k in ks if k[4] == j) for j in range(a.layers)],
            'layer_main_kernels': [sum(1 for k in ks if k[4] == j and k[2] == 2) for j in range(a.layers)],
        }
        self.tf.write(json.dumps(st) + '\n')

    def hccl_tasks(self, k, kname):
        """--hccl-tasks: per peer of the group, on its Plane thread: a
        Notify_Record, a Notify_Wait (the LATE peer's until 70 % of the op,
        the others' 2 us), then a Memcpy and a Reduce_Inline (70-85 % and
        85-98 % of the op).  Exact ns; the truth keeps each op's split."""
        c, a = self.c, self.a
        size, late = a.hccl
        s0, d = k[0], k[1]
        t70, t85, t98 = s0 + d * 70 // 100, s0 + d * 85 // 100, s0 + d * 98 // 100
        ev = []
        peers = [q for q in range(size) if q != a.rank]

        def task(tid, tt, t0, t1, dst, size_b, tr):
            ev.append('{"name": "%s", "pid": %d, "tid": %d, "ts": "%s", "dur": %s, "args": {"notify_id": "%d", '
                      '"stream id": 4, "task id": %d, "task type": "%s", "src rank": %d, "dst rank": %d, '
                      '"transport type": "%s", "size(Byte)": %d, "data type": "INVALID_TYPE", '
                      '"link type": "ON_CHIP"}, "ph": "X"}'
                      % (tt, c.hccl_pid, tid, ts_str(t0), num(t1 - t0), dst, self.comm_n, tt, a.rank, dst,
                         tr, size_b))
        wait = {}
        for i, q in enumerate(peers):
            tid = i + 1
            task(tid, 'Notify_Record', s0, s0 + US, q, 0, 'SDMA')
            w1 = t70 if q == late else s0 + 3 * US
            task(tid, 'Notify_Wait', s0 + US, w1, q, 0, 'LOCAL')
            wait[q] = w1 - s0 - US
            task(tid, 'Memcpy', t70, t85, q, 1 << 20, 'SDMA')
            task(tid, 'Reduce_Inline', t85, t98, q, 1 << 20, 'SDMA')
        # the op's split by the rule of asc-comm(1): transfer 70-98 %,
        # wait 1 us to the latest wait end (given to that peer, the lowest
        # rank of equal ends), the rest
        wend = max(s0 + US + w for w in wait.values())
        self.hccl_truth.append({'op': kname, 'start_rel_ns': s0 - self.origin, 'elapsed_ns': d,
                                'transfer_ns': t98 - t70, 'wait_ns': wend - s0 - US,
                                'wait_peer': late if late is not None else min(peers),
                                'rest_ns': d - (t98 - t70) - (wend - s0 - US)})
        return ev

    def write_comm(self, step, cks, fig=None):
        ops = {}
        tot = {'Elapse Time(ms)': 0.0, 'Transit Time(ms)': 0.0, 'Wait Time(ms)': 0.0,
               'Synchronization Time(ms)': 0.0, 'Idle Time(ms)': 0.0}
        sz_tot = 0.0
        tt_tot = 0.0
        dist_tot = {}
        for k in cks:
            el = k[1] / 1e6
            tr = el * 0.55
            wa = el * 0.30
            sy = el * 0.10
            if fig is not None:     # --comm-exposed-us: exact ns figures
                tr, wa, sy = fig['transit_ns'] / 1e6, fig['wait_ns'] / 1e6, fig['sync_ns'] / 1e6
            idle = el - tr - wa if fig is None else fig['idle_ns'] / 1e6
            size = 16.388
            n = 14
            dist = {'1.170571': [n, tr]}
            zero = {'Transit Size(MB)': 0, 'Transit Time(ms)': 0, 'Bandwidth(GB/s)': 0,
                    'Large Packet Ratio': 0, 'Size Distribution': {}}
            bw = round(size / tr / 1000 * 1000, 4) if tr else 0
            ops['%s@%s' % (k[8], GROUP)] = {
                'Communication Time Info': {
                    'Start Timestamp(us)': k[0] / 1000, 'Elapse Time(ms)': el, 'Transit Time(ms)': tr,
                    'Wait Time(ms)': wa, 'Synchronization Time(ms)': sy, 'Idle Time(ms)': idle,
                    'Wait Time Ratio': round(wa / (wa + tr), 4), 'Synchronization Time Ratio': round(sy / (sy + tr), 4)},
                'Communication Bandwidth Info': {
                    'RDMA': dict(zero),
                    'HCCS': {'Transit Size(MB)': size, 'Transit Time(ms)': tr, 'Bandwidth(GB/s)': bw,
                             'Large Packet Ratio': 0.0, 'Size Distribution': dist},
                    'PCIE': dict(zero),
                    'SDMA': {'Transit Size(MB)': size, 'Transit Time(ms)': tr, 'Bandwidth(GB/s)': bw,
                             'Large Packet Ratio': 0, 'Size Distribution': {}},
                    'SIO': dict(zero)}}
            for key, v in (('Elapse Time(ms)', el), ('Transit Time(ms)', tr), ('Wait Time(ms)', wa),
                           ('Synchronization Time(ms)', sy), ('Idle Time(ms)', idle)):
                tot[key] += v
            sz_tot += size
            tt_tot += tr
            for kk, vv in dist.items():
                dist_tot[kk] = vv
        tot['Wait Time Ratio'] = round(tot['Wait Time(ms)'] / (tot['Wait Time(ms)'] + tot['Transit Time(ms)']), 4)
        tot['Synchronization Time Ratio'] = round(
            tot['Synchronization Time(ms)'] / (tot['Synchronization Time(ms)'] + tot['Transit Time(ms)']), 4)
        z = {'Transit Time(ms)': 0, 'Transit Size(MB)': 0, 'Size Distribution': {}}
        ops['Total Op Info'] = {
            'Communication Time Info': tot,
            'Communication Bandwidth Info': {
                'RDMA': dict(z),
                'HCCS': {'Transit Time(ms)': tt_tot, 'Transit Size(MB)': sz_tot, 'Size Distribution': dist_tot},
                'PCIE': dict(z),
                'SDMA': {'Transit Time(ms)': tt_tot, 'Transit Size(MB)': sz_tot, 'Size Distribution': {}},
                'SIO': dict(z)}}
        if self.comm_written_any():
            self.cf.write(', ')
        self.cf.write('%s: %s' % (jstr('step%d' % step), json.dumps({'p2p': {}, 'collective': ops})))

    def comm_written_any(self):
        w = getattr(self, '_comm_any', False)
        self._comm_any = True
        return w

    def write_opstat(self):
        c = self.c
        fmt = fmt_trim
        total = sum(v[1] for v in self.opstat.values()) or 1
        rows = sorted(self.opstat.items(), key=lambda kv: -kv[1][1])
        with open(os.path.join(c.out, 'op_statistic.csv'), 'w', encoding='utf-8', newline='') as f:
            f.write(OPSTAT_HEADER + '\n')
            for (optype, core), (n, tot, mn, mx) in rows:
                f.write('%s,%s,%d,%s,%s,%s,%s,%s\n' % (
                    optype, core, n, fmt(tot), fmt(mn), fmt((tot + n // 2) // n), fmt(mx),
                    repr(round(tot * 100 / total, 3))))

    # ------------------------------------------------------------- trace assembly
    def meta_events(self):
        c, a = self.c, self.a
        py = []
        pid = c.pid

        def pm(name, tid, args):
            py.append('{"ph": "M", "name": "%s", "pid": %d, "tid": %d, "args": %s}' % (name, pid, tid, args))
        pm('process_name', 0, '{"name": "%s"}' % ('MindSpore' if a.mindspore else 'Python'))
        pm('process_labels', 0, '{"labels": "CPU"}')
        pm('process_sort_index', 0, '{"sort_index": 0}')
        threads = [t for t in [c.main, c.bwd, c.dq] + c.extra if t is not None]
        for i, t in enumerate(threads):
            pm('thread_name', t, '{"name": "Thread %d"}' % t)
            pm('thread_sort_index', t, '{"sort_index": %d}' % t)
        ms = []

        def mm(name, p, tid, args):
            ms.append('{"name": "%s", "pid": %d, "tid": %d, "args": %s, "ph": "M"}' % (name, p, tid, args))
        label = 'NPU %d' % a.rank
        mm('process_name', c.ah_pid, 0, '{"name": "Ascend Hardware"}')
        for s in c.streams:
            mm('thread_name', c.ah_pid, s, '{"name": "Stream %d"}' % s)
            mm('thread_sort_index', c.ah_pid, s, '{"sort_index": %d}' % s)
        mm('process_labels', c.ah_pid, 0, '{"labels": "%s"}' % label)
        mm('process_sort_index', c.ah_pid, 0, '{"sort_index": 13}')
        if a.comm:
            mm('process_name', c.hccl_pid, 0, '{"name": "HCCL"}')
            mm('thread_name', c.hccl_pid, 0, '{"name": "Group %s Communication"}' % GROUP)
            mm('thread_sort_index', c.hccl_pid, 0, '{"sort_index": 0}')
            if a.hccl:
                for i in range(a.hccl[0] - 1):
                    mm('thread_name', c.hccl_pid, i + 1, '{"name": "Plane %d"}' % i)
            mm('process_labels', c.hccl_pid, 0, '{"labels": "%s"}' % label)
            mm('process_sort_index', c.hccl_pid, 0, '{"sort_index": 15}')
        if c.level1:
            mm('process_name', c.cann_pid, 0, '{"name": "CANN"}')
            for t in threads:
                mm('thread_name', c.cann_pid, t, '{"name": "Thread %d"}' % t)
            for t in threads:
                mm('thread_sort_index', c.cann_pid, t, '{"sort_index": %d}' % t)
            mm('process_labels', c.cann_pid, 0, '{"labels": "CPU"}')
            mm('process_sort_index', c.cann_pid, 0, '{"sort_index": 7}')
        mm('process_name', c.ov_pid, 0, '{"name": "Overlap Analysis"}')
        for i, n in enumerate(('Computing', 'Communication', 'Communication(Not Overlapped)', 'Free')):
            mm('thread_name', c.ov_pid, i, '{"name": "%s"}' % n)
        mm('process_labels', c.ov_pid, 0, '{"labels": "%s"}' % label)
        mm('process_sort_index', c.ov_pid, 0, '{"sort_index": 23}')
        self.n_meta = len(py) + len(ms)
        return py, ms

    def gc_meta(self):
        """Metadata of torch_npu's "Python GC" process (written only with GC events)."""
        c = self.c
        g = c.gc_pid
        return ['{"ph": "M", "name": "process_name", "pid": %d, "tid": 0, "args": {"name": "Python GC"}}' % g,
                '{"ph": "M", "name": "process_labels", "pid": %d, "tid": 0, "args": {"labels": "CPU"}}' % g,
                '{"ph": "M", "name": "process_sort_index", "pid": %d, "tid": 0, "args": {"sort_index": 1}}' % g,
                '{"ph": "M", "name": "thread_name", "pid": %d, "tid": %d, "args": {"name": "Python GC"}}' % (g, c.pid),
                '{"ph": "M", "name": "thread_sort_index", "pid": %d, "tid": %d, "args": {"sort_index": %d}}'
                % (g, c.pid, c.pid)]

    def write_trace(self, tmpdir):
        py, ms = self.meta_events()
        path = os.path.join(self.c.out, 'trace_view.json')
        with open(path, 'w', encoding='utf-8', newline='') as f:
            f.write('[')
            first = True

            def copy(name):
                nonlocal first
                with open(os.path.join(tmpdir, name), 'r', encoding='utf-8', newline='') as src:
                    if first:
                        head = src.read(2)
                        if head:
                            if head != ', ':
                                f.write(head)
                            first = False
                    shutil.copyfileobj(src, f, 1 << 20)

            def text(lines):
                nonlocal first
                for ln in lines:
                    if not first:
                        f.write(', ')
                    f.write(ln)
                    first = False
            copy('cpu')
            copy('enq')
            copy('deq')
            text(py)
            copy('func')
            copy('gc')
            if self.n_gc:
                text(self.gc_meta())
            text(ms)
            copy('dev')
            copy('flow')
            f.write(']')

    def write_info(self, prof):
        c, a = self.c, self.a
        lvl1 = c.level1
        info = {
            'config': {
                'common_config': {
                    'activities': ['ProfilerActivity.CPU', 'ProfilerActivity.NPU'],
                    'schedule': {'wait': 0, 'active': a.steps, 'warmup': 1, 'repeat': 1,
                                 'skip_first': max(0, a.first_step - 2)},
                    'record_shapes': True,
                    'profile_memory': False,
                    'with_stack': bool(a.stack),
                    'with_flops': False,
                    'with_modules': True,
                },
                'experimental_config': {
                    '_profiler_level': a.level,
                    '_aic_metrics': 'ACL_AICORE_PIPE_UTILIZATION' if lvl1 else 'ACL_AICORE_NONE',
                    '_l2_cache': False,
                    '_msprof_tx': False,
                    '_data_simplification': True,
                    'record_op_args': False,
                    '_export_type': ['text', 'db'] if a.db else 'text',
                    '_op_attr': False,
                    '_gc_detect_threshold': None,
                },
            },
            'start_info': {
                'syscnt_enable': True,
                'freq': 100,
                'start_cnt': 17238197612056 + (self.base // 10) % 1000000000,
                'start_monotonic': 172163581670080,
            },
            'end_info': {
                'collectionTimeEnd': self.end_ns + 10000000,
                'MonotonicTimeEnd': 172163581670080 + (self.end_ns - self.base) + 10000000,
            },
            'rank_id': a.rank,
            'torch_npu_version': '2.1.0.post10',
            'cann_version': '8.0.RC3',
        }
        with open(os.path.join(prof, 'profiler_info_%d.json' % a.rank), 'w', encoding='utf-8') as f:
            json.dump(info, f, indent=4)
        meta = {'ENV_VARIABLES': {k: '' for k in (
            'ASCEND_GLOBAL_LOG_LEVEL', 'HCCL_RDMA_TC', 'HCCL_RDMA_SL', 'ACLNN_CACHE_LIMIT',
            'HOST_CACHE_CAPACITY', 'ASCEND_ENHANCE_ENABLE', 'PYTORCH_NPU_ALLOC_CONF',
            'ASCEND_LAUNCH_BLOCKING')}}
        if a.comm:
            meta['parallel_group_info'] = {GROUP: {'group_name': 'default_pg', 'group_rank': a.rank,
                                                   'global_ranks': list(range(a.hccl[0] if a.hccl else 2))}}
        with open(os.path.join(prof, 'profiler_metadata.json'), 'w', encoding='utf-8') as f:
            json.dump(meta, f, indent=4)

    def write_truth(self, path, name, prof, tmpdir):
        a = self.a
        o = self.origin
        files = {}
        for root, _, fs in os.walk(prof):
            for fn in fs:
                p = os.path.join(root, fn)
                if '.ascgen.tmp' in p:
                    continue
                files[os.path.relpath(p, prof)] = os.path.getsize(p)
        head = {
            'generator': 'ascgen.py',
            'version': 1,
            'argv': sys.argv[1:],
            'profile_dir': name,
            'framework': 'mindspore' if a.mindspore else 'torch_npu',
            'level': a.level,
            'rank': a.rank,
            'first_step': a.first_step,
            'steps_count': a.steps,
            'layers': a.layers,
            'origin_us': ts_str(o),
            'origin_ns': str(o),
            'total_kernel_rows': self.n_rows,
            'bad_rows': 1 if a.rows_bad else 0,
            'host_x_events': sum(self.n_py.values()),
            'host_x_by_cat': self.n_py,
            'cann_x_events': self.n_cann,
            'device_x_events': self.n_dev if not a.no_trace else 0,
            'overlap_x_events': self.n_ov,
            'trace_written': not a.no_trace,
            'files': files,
            'bubbles': self.bubble_truth,
        }
        if a.moe_shape:
            head['moe'] = self.moe_truth
        if a.prelaunch_cause:
            head['prelaunch_causes'] = self.prelaunch_truth
        if a.dev_tasks:
            head['device_tasks'] = self.devtask_truth
        if a.comm_exposed_us is not None:
            head['comm_exposed'] = self.comm_truth
        if a.op_truth:
            head['op_types'] = self.op_types
        if a.hccl:
            head['hccl_tasks'] = {'group_size': a.hccl[0], 'late_peer': a.hccl[1], 'ops': self.hccl_truth}
        with open(path, 'w', encoding='utf-8', newline='') as f:
            s = json.dumps(head, indent=1)
            f.write(s[:-2] + ',\n "steps": [\n')
            with open(os.path.join(tmpdir, 'truth_steps'), encoding='utf-8') as src:
                firstl = True
                for line in src:
                    if not firstl:
                        f.write(',\n')
                    f.write('  ' + line.rstrip('\n'))
                    firstl = False
            f.write('\n ]\n}\n')


def merge(ivs):
    ivs = sorted(ivs)
    out = []
    for s, e in ivs:
        if out and s <= out[-1][1]:
            if e > out[-1][1]:
                out[-1][1] = e
        else:
            out.append([s, e])
    return out


def subtract(a, b):
    """Intervals of union a minus union b (both merged and sorted)."""
    res = []
    j = 0
    for s, e in a:
        cur = s
        while j < len(b) and b[j][1] <= cur:
            j += 1
        k = j
        while k < len(b) and b[k][0] < e:
            if b[k][0] > cur:
                res.append((cur, b[k][0]))
            cur = max(cur, b[k][1])
            k += 1
        if cur < e:
            res.append((cur, e))
    return res


if __name__ == '__main__':
    main(sys.argv[1:])
