#!/usr/bin/python3
"""asctrain.py - write a synthetic torch_npu training capture (one rank of
a dp x pp [x ep] job, Level1 text export without trace_view.json, like the
real LLaMA PP2xDP2 capture) plus a ground-truth JSON file.

Per step: forward layers (FlashAttentionScore ... ), backward layers
(FlashAttentionScoreGrad ... with *Grad kernels), dp gradient-bucket
allReduces in the last backward pass, an optimizer step (ApplyAdamWV2).
Under --pp the rank is one pipeline stage running a 1F1B schedule of
--micro-batches micro-batches, with hcom_batchSendRecv between passes;
without --pp the micro-batches run forward, backward, forward, ... (gradient
accumulation).  --moe makes the layers MoE (MoeGatingTopK, GroupedMatmul,
alltoallv in an ep group).  The last stage computes the loss
(ArgMaxWithValue over the vocabulary + SoftmaxCrossEntropyWithLogits);
with --lm-head VOCAB it runs instead a final RmsNorm, the LM head (a
MatMul to VOCAB-sized logits) and an unfused softmax cross-entropy (Cast,
Sub, Exp, ReduceSum, RealDiv, Mul kernels of milliseconds), then its
backward (Sub, Mul, Cast and the LM head's two MatMuls) before the first
backward layer: no kernel of it is named as a loss.  The truth gives the
block's kernels and kernel time (lm_head_loss).  --layer-order model runs
a layer as a model does, its input RmsNorm, QKV MatMul and rotary
embedding before the attention kernel (forward) and its MLP's gradient
before the attention gradient (backward); the default (anchor) starts
each layer at its attention kernel.  The truth lists every layer's
kernels and kernel time (layers), the backward ones by the layer they
differentiate.

profiler_metadata.json parallel_group_info, by --meta:
  group  keys are the communication groups of communication.json
  dims   keys do not match them (as in the real capture): roles from sizes
  none   no parallel_group_info
Kernel rows and profiler_info come from ascgen.py's writers.
"""
import argparse
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ascgen  # noqa: E402
from ascgen import US, moe_k  # noqa: E402

G_DP, G_PP, G_EP, G_TP = '7100000000000000111', '7100000000000000222', \
    '7100000000000000333', '7100000000000000444'
SUF = {G_DP: '111', G_PP: '222', G_EP: '333'}


def comm_e(op, opname):
    """A communication catalogue entry (ascgen's tuple shape)."""
    return ('c10d::' + op, opname, opname + '_%d', opname, 'COMMUNICATION', 0, '', '', '', '',
            '', '', 300, 900, '[[4096]];\r\n[]', 'GenericList;\r\nScalar', op)


AR = comm_e('allreduce_', 'hcom_allReduce_')
SR = comm_e('batch_isend_irecv', 'hcom_batchSendRecv_')
A2A = comm_e('alltoall_base_', 'hcom_alltoallv_')


def k(name, optype, core, lo, hi):
    return (moe_k(name, optype, core, lo, hi), lo, hi)


def vec(name, lo, hi):
    """A vector-core kernel named after its op type."""
    return k(name, name, 'AI_VECTOR_CORE', lo, hi)


FA = k('aclnnFlashAttentionScore_FlashAttentionScore_FlashAttentionScore', 'FlashAttentionScore',
       'MIX_AIC', 800, 1200)
FAG = k('aclnnFlashAttentionScoreGrad_FlashAttentionScoreGrad_FlashAttentionScoreGrad',
        'FlashAttentionScoreGrad', 'MIX_AIC', 2000, 2600)
MM = k('aclnnMatmul_MatMulV3Common_MatMulV3', 'MatMulV3', 'AI_CORE', 100, 300)
ADD = k('aclnnAdd_AddAiCore_Add', 'Add', 'AI_VECTOR_CORE', 20, 40)
RMS = vec('RmsNorm', 25, 45)
RMSG = vec('RmsNormGrad', 60, 120)
ROPE = vec('RotaryPositionEmbedding', 30, 55)
ROPEG = vec('RotaryPositionEmbeddingGrad', 40, 70)
SWI = vec('SwiGlu', 50, 70)
SWIG = vec('SwiGluGrad', 180, 260)
GATE = vec('MoeGatingTopK', 40, 80)
GMM = k('GroupedMatmul', 'GroupedMatmul', 'AI_CORE', 300, 600)
FIN = vec('MoeFinalizeRoutingV2', 40, 80)
FING = vec('MoeFinalizeRoutingV2Grad', 60, 100)
EMB = k('aclnnEmbedding_GatherV2AiCore_GatherV2', 'GatherV2', 'AI_VECTOR_CORE', 35, 50)
EMBG = k('aclnnEmbeddingDenseBackward_EmbeddingDenseGradV2_EmbeddingDenseGradV2',
         'EmbeddingDenseGradV2', 'MIX_AIV', 120, 140)
ARGM = vec('ArgMaxWithValue', 70, 90)
XENT = vec('SoftmaxCrossEntropyWithLogits', 60, 90)
XENTG = vec('SoftmaxCrossEntropyWithLogitsGrad', 60, 90)
# --lm-head: the LM head and an unfused loss over the vocabulary (ms).
def vk(name, optype, core, lo, hi, shapes):
    return (moe_k(name, optype, core, lo, hi, shapes), lo, hi)


def lm_block(vocab):
    """The LM head + unfused loss block, forward then backward."""
    v = '8,2048,%d' % vocab
    ms = vocab // 4000      # the logits' kernels grow with the vocabulary
    mm = lambda lo: vk('aclnnMatmul_MatMulV3Common_MatMulV3', 'MatMulV3', 'AI_CORE',
                       lo * ms, (lo + 200) * ms, v)
    ew = lambda n, op, lo: vk('aclnn%s_%sAiCore_%s' % (n, op, op), op, 'AI_VECTOR_CORE',
                              lo * ms, (lo + 100) * ms, v)
    fwd = [RMS, mm(900), ew('Cast', 'Cast', 250), ew('Sub', 'Sub', 300), ew('Exp', 'Exp', 300),
           ew('ReduceSum', 'ReduceSum', 200), ew('Div', 'RealDiv', 300), ew('Mul', 'Mul', 250)]
    bwd = [ew('Sub', 'Sub', 300), ew('Mul', 'Mul', 250), ew('Cast', 'Cast', 250), mm(900), mm(1000)]
    return fwd + bwd


ADAM = k('aclnnApplyAdamWV2_ApplyAdamWV2_ApplyAdamWV2', 'ApplyAdamWV2', 'AI_VECTOR_CORE', 60, 200)


class Rank:
    def __init__(self, a):
        self.a = a
        self.rng = random.Random(a.seed)
        self.t = a.base_us * 1000
        self.ks = []            # [start, dur, stream, entry, layer, kind, m, None, name, taskid]
        self.comm = []          # (kind, name, group, start_ns, dur_ns)
        self.seq = {}
        self.task = 30000
        self.truth = {'dp_comm': 0, 'pp_comm': 0, 'ep_comm': 0}
        self.slowed, self.gaps_ns = False, 0     # --bucket-gap-us
        self.loss = 0
        self.lm = []            # (start_ns, dur_ns) of the LM head + loss kernels
        self.layers = []        # per layer: direction, micro-batch, layer, kernels, sum

    def dur(self, lo, hi):
        return self.rng.randrange(lo * US, hi * US + 1)

    def gap(self):
        self.t += self.rng.randrange(1 * US, 6 * US)

    def kern(self, spec, step):
        e, lo, hi = spec
        d = self.dur(lo, hi)
        self.task += 1
        self.ks.append([self.t, d, 2, e, 0, 0, 0, None, e[2], self.task, step])
        self.t += d
        self.gap()

    def coll(self, e, group, role, step, kind='collective', wait=False):
        n = self.seq.get(group, 0) + 1
        self.seq[group] = n
        name = '%s_%s_%d_1' % (e[1], SUF[group], n)
        d = self.dur(e[12], e[13])
        if group == G_DP and n == 1 and self.a.bucket_us:   # a late peer: drawn, then set
            d = self.a.bucket_us * US
        self.ks.append([self.t, d, -1, e, 0, 2, 0, None, name, 0, step])
        self.comm.append((kind, name, group, self.t, d, step))
        self.truth[role] += 1
        if wait:                # the compute stream waits for it
            self.t += d
        self.gap()

    def layer(self, fwd, step, mb=0, no=0):
        a = self.a
        if a.layer_order == 'model' and not a.moe:
            seq = [RMS, MM, ROPE, FA, MM, ADD, RMS, MM, SWI, MM, ADD] if fwd else \
                [MM, SWIG, MM, RMSG, MM, FAG, ROPEG, MM, RMSG, ADD]
        elif fwd:
            seq = [FA, MM, ADD, RMS]
            if a.moe:
                seq += [GATE, 'a2a', GMM, SWI, GMM, 'a2a', FIN]
            else:
                seq += [MM, SWI, MM]
            seq += [ADD, RMS, MM, ROPE]
        else:
            seq = [FAG, MM, MM, RMSG]
            if a.moe:
                seq += [FING, 'a2a', GMM, SWIG, GMM, 'a2a']
            else:
                seq += [MM, SWIG, MM]
            seq += [RMSG, MM, ROPEG]
        n0 = len(self.ks)
        # the host launching slowly under the first bucket: a gap after each
        # kernel but the last of the layer that follows it
        slow = not fwd and self.a.bucket_gap_us and self.seq.get(G_DP, 0) == 1 and not self.slowed
        for i, s in enumerate(seq):
            if s == 'a2a':
                self.coll(A2A, G_EP, 'ep_comm', step, wait=True)
            else:
                self.kern(s, step)
            if slow and i + 1 < len(seq):
                self.t += self.a.bucket_gap_us * US
                self.gaps_ns += self.a.bucket_gap_us * US
        self.slowed = self.slowed or slow
        ks = [x for x in self.ks[n0:] if x[5] != 2]    # its compute kernels
        self.layers.append({'step': step, 'direction': 'forward' if fwd else 'backward',
                            'micro_batch': mb, 'layer': no, 'kernels': len(ks),
                            'kernel_sum_ns': sum(x[1] for x in ks)})

    def run(self):
        a = self.a
        P, s, M = a.pp, a.stage, a.micro_batches
        first, last = s == 0, s == P - 1
        warm = min(P - s - 1, M) if P > 1 else 0
        order = []
        if P > 1:
            order = ['F'] * warm
            for _ in range(M - warm):
                order += ['F', 'B']
            order += ['B'] * warm
        else:
            for _ in range(M):
                order += ['F', 'B']
        for step in range(a.first_step, a.first_step + a.steps):
            nb = nf = 0
            for o in order:
                if o == 'F':
                    nf += 1
                    if P > 1 and not first:
                        self.coll(SR, G_PP, 'pp_comm', step, 'p2p', wait=True)
                    if first:
                        self.kern(EMB, step)
                    for j in range(a.layers):
                        self.layer(True, step, nf, j + 1)
                    if last and a.lm_head:
                        for spec in lm_block(a.lm_head):
                            self.kern(spec, step)
                            self.lm.append((self.ks[-1][0], self.ks[-1][1]))
                    elif last:
                        self.kern(ARGM, step)
                        self.kern(XENT, step)
                        self.loss += 2
                    if P > 1 and not last:
                        self.coll(SR, G_PP, 'pp_comm', step, 'p2p', wait=True)
                else:
                    nb += 1
                    if P > 1 and not last:
                        self.coll(SR, G_PP, 'pp_comm', step, 'p2p', wait=True)
                    if last and not a.lm_head:
                        self.kern(XENTG, step)
                    for j in range(a.layers):
                        self.layer(False, step, nb, a.layers - j)
                        # gradient buckets in the last backward pass
                        if nb == M and a.dp > 1 and (j + 1) * a.buckets // a.layers > j * a.buckets // a.layers:
                            self.coll(AR, G_DP, 'dp_comm', step)
                    if first:
                        self.kern(EMBG, step)
                    if P > 1 and not first:
                        self.coll(SR, G_PP, 'pp_comm', step, 'p2p', wait=True)
            self.t += 200 * US      # the buckets finish before the update
            for _ in range(a.params):
                self.kern(ADAM, step)
            self.t += self.rng.randrange(1000 * US, 3000 * US)   # next step's host gap

    # --------------------------------------------------------------- files
    def write(self, outdir, name):
        a = self.a
        prof = os.path.join(outdir, name)
        out = os.path.join(prof, 'ASCEND_PROFILER_OUTPUT')
        os.makedirs(out, exist_ok=True)
        # ascgen's writers on a bare Generator: kernel rows, op_statistic, profiler_info.
        g = ascgen.Generator.__new__(ascgen.Generator)
        g.c = ascgen.Ctx()
        g.c.fmt, g.c.level1, g.c.out = ascgen.fmt_trim, True, out
        g.a = argparse.Namespace(db=False, no_step_id=False, mindspore=False, rank=a.rank,
                                 comm_type='COMMUNICATION', unsorted=False, steps=a.steps,
                                 first_step=a.first_step, stack=False, level='Level1', comm=False)
        g.first_row, g.prev_end, g.opstat, g.n_rows, g.last_row = True, None, {}, 0, None
        g.op_types = {}
        g.base = a.base_us * 1000
        self.ks.sort(key=lambda x: x[0])
        g.end_ns = max(x[0] + x[1] for x in self.ks)
        with open(os.path.join(out, 'kernel_details.csv'), 'w', encoding='utf-8', newline='') as f:
            g.kf = f
            f.write('Step Id,' + ascgen.L1_HEADER + '\r\n')
            for step in range(a.first_step, a.first_step + a.steps):
                g.emit_kernels(step, [x for x in self.ks if x[10] == step])
        g.write_opstat()
        g.write_info(prof)
        self.write_comm(out)
        self.write_meta(prof)
        return prof

    def write_comm(self, out):
        steps = {}
        for kind, name, group, st, d, step in self.comm:
            el = d / 1e6
            z = {'Transit Size(MB)': 0, 'Transit Time(ms)': 0, 'Bandwidth(GB/s)': 0,
                 'Large Packet Ratio': 0, 'Size Distribution': {}}
            ops = steps.setdefault('step%d' % step, {'p2p': {}, 'collective': {}})[kind]
            ops['%s@%s' % (name, group)] = {
                'Communication Time Info': {
                    'Start Timestamp(us)': st / 1000, 'Elapse Time(ms)': el,
                    'Transit Time(ms)': el * 0.6, 'Wait Time(ms)': el * 0.3,
                    'Synchronization Time(ms)': el * 0.1, 'Idle Time(ms)': el * 0.1,
                    'Wait Time Ratio': 0.3333, 'Synchronization Time Ratio': 0.1429},
                'Communication Bandwidth Info': {
                    b: dict(z) for b in ('RDMA', 'HCCS', 'PCIE', 'SDMA', 'SIO')}}
        with open(os.path.join(out, 'communication.json'), 'w', encoding='utf-8') as f:
            json.dump(steps, f)

    def write_meta(self, prof):
        a = self.a
        meta = {'ENV_VARIABLES': {'ASCEND_GLOBAL_LOG_LEVEL': '3'}}
        if a.meta != 'none':
            world = a.dp * a.pp
            groups = [('default_group', list(range(world)), None),
                      ('dp', list(range(a.dp)), G_DP), ('tp', [a.rank], G_TP),
                      ('pp', list(range(0, world, a.dp))[:a.pp] if a.pp > 1 else [a.rank], G_PP),
                      ('mp', [a.rank], None)]
            if a.moe:
                groups.append(('ep', list(range(a.ep)), G_EP))
            info = {}
            for i, (gn, ranks, gid) in enumerate(groups):
                key = gid if a.meta == 'group' and gid else 'group_name_%d' % i
                # this rank's place in its group: its stage in the pp group
                rk = a.stage if gn == 'pp' and a.pp > 1 else 0
                info[key] = {'group_name': gn, 'group_rank': rk, 'global_ranks': ranks}
            meta['parallel_group_info'] = info
        with open(os.path.join(prof, 'profiler_metadata.json'), 'w', encoding='utf-8') as f:
            json.dump(meta, f)


def main(argv):
    p = argparse.ArgumentParser(prog='asctrain.py', description=__doc__.split('\n')[0])
    p.add_argument('outdir')
    p.add_argument('--name', default='train_ascend_pt')
    p.add_argument('--layers', type=int, default=4, help='layers of this stage')
    p.add_argument('--micro-batches', type=int, default=1)
    p.add_argument('--pp', type=int, default=1, help='pipeline stages')
    p.add_argument('--stage', type=int, default=0, help='this rank\'s pipeline stage')
    p.add_argument('--dp', type=int, default=2)
    p.add_argument('--ep', type=int, default=2, help='with --moe: expert-parallel ranks')
    p.add_argument('--moe', action='store_true')
    p.add_argument('--buckets', type=int, default=2, help='dp gradient buckets (allReduce)')
    p.add_argument('--params', type=int, default=6, help='optimizer kernels per step')
    p.add_argument('--bucket-us', type=int, default=0,
                   help='the first gradient bucket\'s all-reduce lasts US (a late peer)')
    p.add_argument('--bucket-gap-us', type=int, default=0,
                   help='US of host gap after each kernel but the last of the backward '
                   'layer after the first bucket (step 1 of the run only)')
    p.add_argument('--steps', type=int, default=1)
    p.add_argument('--first-step', type=int, default=5)
    p.add_argument('--meta', choices=['group', 'dims', 'none'], default='group')
    p.add_argument('--rank', type=int, default=0)
    p.add_argument('--seed', type=int, default=1)
    p.add_argument('--lm-head', type=int, default=0, metavar='VOCAB',
                   help='the last stage runs an LM head over VOCAB and an unfused loss')
    p.add_argument('--layer-order', choices=['anchor', 'model'], default='anchor',
                   help='model: a layer\'s kernels before its attention kernel are its own')
    p.add_argument('--base-us', type=int, default=1760000000000000)
    a = p.parse_args(argv)
    if a.layers < 1 or a.micro_batches < 1 or a.pp < 1 or not 0 <= a.stage < a.pp or \
            a.dp < 1 or a.steps < 1 or a.buckets < 0 or a.buckets > a.layers or \
            not (a.lm_head == 0 or a.lm_head >= 4000):
        ascgen.die('bad sizes: want layers, micro-batches, pp, dp, steps >= 1, '
                   '0 <= stage < pp, 0 <= buckets <= layers')
    r = Rank(a)
    r.run()
    prof = r.write(a.outdir, a.name)
    srcs = {'group': 'metadata_group', 'dims': 'metadata_dims', 'none': 'position'}
    truth = {'train': {
        'phase': 'training',
        # [stage, stages] as parallel_group_info's pp group tells them
        'pipeline': [a.stage, a.pp] if a.pp > 1 and a.meta != 'none' else None,
        'layers_per_micro_batch': a.layers,
        'micro_batches': a.micro_batches,
        'steps': a.steps,
        'forward_layers': a.layers * a.micro_batches * a.steps,
        'backward_layers': a.layers * a.micro_batches * a.steps,
        'moe': a.moe,
        'comm_roles': {k: v for k, v in r.truth.items() if v},
        # --bucket-gap-us: the host gaps added, all in one backward layer
        'bucket_gaps_ns': r.gaps_ns,
        # Where the dp role comes from: its group, the only collective dimension
        # with > 1 rank, or its position; under "dims" the MoE job has two (dp,
        # ep), so dp falls back to position (all-to-all is ep by its name).
        'dp_role_source': 'position' if a.moe and a.meta == 'dims' else srcs[a.meta],
        'optimizer_kernels': a.params * a.steps,
        'loss_kernels': r.loss,
        'kernels': len(r.ks),
        'layers': r.layers if a.layer_order == 'model' else None,
        # Per step (one micro-batch: forward block then its backward): the
        # LM head + loss kernels, their kernel time and span (ns).
        'lm_head_loss': None if not r.lm else {
            'kernels': len(r.lm),
            'kernel_sum_ns': sum(d for _, d in r.lm),
            'start_ns': r.lm[0][0] - a.base_us * 1000,
            'end_ns': r.lm[-1][0] + r.lm[-1][1] - a.base_us * 1000},
    }}
    with open(os.path.join(a.outdir, a.name + '.truth.json'), 'w', encoding='utf-8') as f:
        json.dump(truth, f, indent=1)
    return prof


if __name__ == '__main__':
    main(sys.argv[1:])
