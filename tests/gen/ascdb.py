"""ascdb.py - write the SQLite export (ascend_pytorch_profiler_<rank>.db) of
a profile ascgen.py has just written as text: the same facts, in the tables
and columns the real torch_npu DB export has (see asc-ingest(1), SQLite
export, and tests/data/real/alexnet-2rank-db).

Read back from the text export, so text and DB are the same profile:
kernel_details.csv -> TASK, COMPUTE_TASK_INFO, TASK_PMU_INFO,
COMMUNICATION_OP (groupName from communication.json); trace_view.json (streamed) -> PYTORCH_API, CANN_API,
PYTORCH_CALLCHAINS, CONNECTION_IDS (from the torch_to_npu / HostToDevice
flows), STEP_TIME (the ProfilerStep#N rows).  Rows are inserted in file
order, so rowids follow the text's order.  Memory stays bounded: flows and
device events go through temporary tables, joined in SQL at the end.
"""
import csv
import json
import os
import sqlite3
from decimal import Decimal, ROUND_HALF_UP

SCHEMA = """
CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY,value TEXT);
CREATE TABLE META_DATA (name TEXT,value TEXT);
CREATE TABLE NPU_INFO (id INTEGER,name TEXT);
CREATE TABLE SESSION_TIME_INFO (startTimeNs INTEGER,endTimeNs INTEGER);
CREATE TABLE RANK_DEVICE_MAP (rankId INTEGER, deviceId INTEGER);
CREATE TABLE ENUM_API_TYPE (id INTEGER PRIMARY KEY,name TEXT);
CREATE TABLE TASK (startNs INTEGER,endNs INTEGER,deviceId INTEGER,connectionId INTEGER,
  globalTaskId INTEGER,globalPid INTEGER,taskType INTEGER,contextId INTEGER,streamId INTEGER,
  taskId INTEGER,modelId INTEGER);
CREATE TABLE COMPUTE_TASK_INFO (name INTEGER,globalTaskId INTEGER PRIMARY KEY,blockDim INTEGER,
  mixBlockDim INTEGER,taskType INTEGER,opType INTEGER,inputFormats INTEGER,inputDataTypes INTEGER,
  inputShapes INTEGER,outputFormats INTEGER,outputDataTypes INTEGER,outputShapes INTEGER,
  attrInfo INTEGER,opState INTEGER,hf32Eligible INTEGER);
CREATE TABLE TASK_PMU_INFO (globalTaskId INTEGER,name INTEGER,value NUMERIC);
CREATE TABLE COMMUNICATION_OP (opName INTEGER,startNs INTEGER,endNs INTEGER,connectionId INTEGER,
  groupName INTEGER,opId INTEGER PRIMARY KEY,relay INTEGER,retry INTEGER,dataType INTEGER,
  algType INTEGER,count NUMERIC,opType INTEGER);
CREATE TABLE CANN_API (startNs INTEGER,endNs INTEGER,type INTEGER,globalTid INTEGER,
  connectionId INTEGER PRIMARY KEY,name INTEGER);
CREATE TABLE PYTORCH_API (startNs TEXT, endNs TEXT, globalTid INTEGER, connectionId INTEGER,
  name INTEGER, sequenceNumber INTEGER, fwdThreadId INTEGER, inputDtypes INTEGER,
  inputShapes INTEGER, callchainId INTEGER, type INTEGER);
CREATE TABLE CONNECTION_IDS (id INTEGER, connectionId INTEGER);
CREATE TABLE PYTORCH_CALLCHAINS (id INTEGER, stack INTEGER, stackDepth INTEGER);
CREATE TABLE STEP_TIME (id INTEGER, startNs INTEGER, endNs INTEGER);
CREATE TEMP TABLE devx (ts INTEGER, stream INTEGER, taskid INTEGER, name TEXT, conn INTEGER);
CREATE TEMP TABLE fs (gtid INTEGER, ts INTEGER, kts INTEGER);
CREATE TEMP TABLE hs (tid INTEGER, ts INTEGER, conn INTEGER);
"""

API_TYPE = {'AscendCL': 20000, 'Model': 15000, 'Node': 10000, 'Hccl': 5500, 'Runtime': 5000}
PY_TYPE = {'cpu_op': 50001, 'enqueue': 50002, 'dequeue': 50002, 'python_function': 50003}
INVALID = 4294967295
CHUNK = 1 << 20


def us2ns(s):
    """Microsecond text (or number) to exact integer ns."""
    return int((Decimal(str(s).strip().strip('\t')) * 1000).to_integral_value(ROUND_HALF_UP))


class Strings:
    """STRING_IDS, ids from 1 << 28 as torch_npu's framework strings."""

    def __init__(self, db):
        self.db = db
        self.ids = {}
        self.next = 1 << 28

    def id(self, s):
        if s is None:
            return None
        i = self.ids.get(s)
        if i is None:
            i = self.ids[s] = self.next
            self.next += 1
            self.db.execute('INSERT INTO STRING_IDS VALUES (?, ?)', (i, s))
        return i


def events(path):
    """The event objects of a trace (bare array), streamed."""
    dec = json.JSONDecoder()
    with open(path, 'r', encoding='utf-8', newline='') as f:
        buf = f.read(CHUNK)
        pos = buf.index('[') + 1
        eof = False
        while True:
            while pos < len(buf) and buf[pos] in ' \t\r\n,':
                pos += 1
            if pos >= len(buf) or (not eof and len(buf) - pos < 65536):
                more = '' if eof else f.read(CHUNK)
                if not more:
                    eof = True
                buf = buf[pos:] + more
                pos = 0
                if not buf:
                    return
                continue
            if buf[pos] == ']':
                return
            try:
                ev, end = dec.raw_decode(buf, pos)
            except ValueError:
                if eof:
                    raise
                more = f.read(CHUNK)
                if not more:
                    eof = True
                buf = buf[pos:] + more
                pos = 0
                continue
            pos = end
            yield ev


def write(out, rank, device, python='Python'):
    """Write OUT/ascend_pytorch_profiler_<rank>.db from the text export in OUT."""
    path = os.path.join(out, 'ascend_pytorch_profiler_%d.db' % rank)
    if os.path.exists(path):
        os.unlink(path)
    db = sqlite3.connect(path)
    db.execute('PRAGMA journal_mode = OFF')
    db.execute('PRAGMA synchronous = OFF')
    db.executescript(SCHEMA)
    st = Strings(db)
    db.executemany('INSERT INTO ENUM_API_TYPE VALUES (?, ?)',
                   [(5000, 'runtime'), (5500, 'hccl'), (10000, 'node'), (15000, 'model'),
                    (20000, 'acl'), (50001, 'op'), (50002, 'queue'), (50003, 'trace'),
                    (50004, 'mstx')])
    db.executemany('INSERT INTO META_DATA VALUES (?, ?)',
                   [('SCHEMA_VERSION_MICRO', '0'), ('SCHEMA_VERSION_MINOR', '0'),
                    ('SCHEMA_VERSION_MAJOR', '1'), ('SCHEMA_VERSION', '1.0.0')])
    db.execute('INSERT INTO NPU_INFO VALUES (?, ?)', (device, 'Ascend910B'))
    db.execute('INSERT INTO RANK_DEVICE_MAP VALUES (?, ?)', (rank, device))
    kernels(db, st, os.path.join(out, 'kernel_details.csv'), device,
            groups(os.path.join(out, 'communication.json')))
    trace(db, st, os.path.join(out, 'trace_view.json'), python, device)
    link(db)
    db.execute('INSERT INTO SESSION_TIME_INFO SELECT min(s), max(e) FROM '
               '(SELECT CAST(startNs AS INTEGER) AS s, CAST(endNs AS INTEGER) AS e FROM PYTORCH_API '
               'UNION ALL SELECT startNs, endNs FROM TASK)')
    db.execute('CREATE INDEX TaskIndex ON TASK (startNs,globalTaskId)')
    db.commit()
    db.close()
    return path


def groups(path):
    """op name -> group of the communication.json at path ({} if none)."""
    g = {}
    if os.path.exists(path):
        with open(path, encoding='utf-8') as f:
            for step in json.load(f).values():
                for ops in step.values():
                    for key in ops:
                        if '@' in key:
                            op, grp = key.rsplit('@', 1)
                            g[op] = grp
    return g


def kernels(db, st, path, device, group):
    with open(path, 'r', encoding='utf-8', newline='') as f:
        rd = csv.reader(f)
        hdr = next(rd)
        col = {h: i for i, h in enumerate(hdr)}
        base = {'Device_id', 'Step Id', 'Step ID', 'Model ID', 'Task ID', 'Stream ID', 'Name', 'Type',
                'OP State', 'Accelerator Core', 'Start Time(us)', 'Duration(us)', 'Wait Time(us)',
                'Block Dim', 'Mix Block Dim', 'HF32 Eligible', 'Input Shapes', 'Input Data Types',
                'Input Formats', 'Output Shapes', 'Output Data Types', 'Output Formats', 'Context ID'}
        pmu = [(i, st.id(h)) for i, h in enumerate(hdr) if h not in base]

        def get(row, name, conv=None):
            i = col.get(name)
            if i is None or i >= len(row):
                return None
            v = row[i].strip('\t')
            if v in ('N/A', ''):
                return None
            return conv(v) if conv else v

        def sid(row, name):
            return st.id(get(row, name))
        gtid = 0
        opid = 1
        task, cti, pm, comm = [], [], [], []

        def flush():
            db.executemany('INSERT INTO TASK VALUES (?,?,?,?,?,?,?,?,?,?,?)', task)
            db.executemany('INSERT INTO COMPUTE_TASK_INFO VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)', cti)
            db.executemany('INSERT INTO TASK_PMU_INFO VALUES (?,?,?)', pm)
            db.executemany('INSERT INTO COMMUNICATION_OP VALUES (?,?,?,?,?,?,?,?,?,?,?,?)', comm)
            del task[:], cti[:], pm[:], comm[:]
        for row in rd:
            if len(row) != len(hdr):
                continue            # --rows-bad: the text reader rejects it too
            s = us2ns(get(row, 'Start Time(us)'))
            e = s + us2ns(get(row, 'Duration(us)'))
            core = get(row, 'Accelerator Core')
            if core in ('COMMUNICATION', 'HCCL'):
                comm.append((sid(row, 'Name'), s, e, None, st.id(group.get(get(row, 'Name'))), opid,
                             0, 0, None, None, None, sid(row, 'Type')))
                opid += 1
            else:
                ctx = get(row, 'Context ID', int)
                model = get(row, 'Model ID', int)
                task.append((s, e, device, None, gtid, None, st.id('KERNEL_AICORE'),
                             INVALID if ctx is None else ctx, get(row, 'Stream ID', int),
                             get(row, 'Task ID', int), INVALID if model is None else model))
                cti.append((sid(row, 'Name'), gtid, get(row, 'Block Dim', int),
                            get(row, 'Mix Block Dim', int), st.id(core), sid(row, 'Type'),
                            sid(row, 'Input Formats'), sid(row, 'Input Data Types'),
                            sid(row, 'Input Shapes'), sid(row, 'Output Formats'),
                            sid(row, 'Output Data Types'), sid(row, 'Output Shapes'), None,
                            sid(row, 'OP State'), sid(row, 'HF32 Eligible')))
                for i, nid in pmu:
                    v = row[i]
                    if v in ('N/A', ''):
                        continue
                    pm.append((gtid, nid, float(v) if any(c in v for c in '.eE') else int(v)))
                gtid += 1
            if len(task) + len(pm) > 50000:
                flush()
        flush()


def frames(stack):
    out = []
    for fr in stack.split('\n'):
        fr = fr.strip(' \t').rstrip(' \t\r;')
        if fr:
            out.append(fr)
    return out


def trace(db, st, path, python, device):
    """X events and flows in file order into temporary tables; the process
    names (metadata, which may come last) decide at the end where they go."""
    procs = {}
    chains = {}
    xev, fl, cc = [], [], []

    def flush():
        db.executemany('INSERT INTO temp.xev VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)', xev)
        db.executemany('INSERT INTO temp.fl VALUES (?,?,?,?,?)', fl)
        db.executemany('INSERT INTO PYTORCH_CALLCHAINS VALUES (?,?,?)', cc)
        for x in (xev, fl, cc):
            del x[:]
    db.execute('CREATE TEMP TABLE xev (pid INTEGER, tid INTEGER, s INTEGER, e INTEGER, name INTEGER, '
               'pytype INTEGER, seqn INTEGER, fwd INTEGER, itype INTEGER, idims INTEGER, cid INTEGER, '
               'ctype INTEGER, cname INTEGER, stream INTEGER, taskid INTEGER, conn INTEGER)')
    db.execute('CREATE TEMP TABLE fl (pid INTEGER, tid INTEGER, ts INTEGER, id INTEGER, cat TEXT)')
    for ev in events(path):
        ph = ev.get('ph')
        pid = ev.get('pid')
        if ph == 'M':
            if ev.get('name') == 'process_name':
                procs[pid] = ev.get('args', {}).get('name')
            continue
        tid = ev.get('tid', 0)
        if ph == 'X':
            s = us2ns(ev['ts'])
            e = s + us2ns(ev['dur'])
            args = ev.get('args') or {}
            name = ev.get('name', '')
            cid = None
            stack = args.get('Call stack')
            if stack is not None:
                cid = chains.get(stack)
                if cid is None:
                    cid = chains[stack] = len(chains)
                    for depth, fr in enumerate(frames(stack)):
                        cc.append((cid, st.id(fr), depth))
            pre, _, rest = name.partition('@')
            xev.append((pid, tid, s, e, st.id(name), PY_TYPE.get(ev.get('cat')),
                        args.get('Sequence number'), args.get('Fwd thread id'),
                        st.id(args.get('Input type')), st.id(args.get('Input Dims')), cid,
                        API_TYPE.get(pre) if rest else None, st.id(rest) if rest else None,
                        args.get('Physic Stream Id', args.get('Stream Id')), args.get('Task Id'),
                        args.get('connection_id')))
        elif ph == 's' and ev.get('cat') in ('async_npu', 'torch_to_npu', 'HostToDevice'):
            fl.append((pid, tid, us2ns(ev['ts']), int(ev['id']), ev.get('cat')))
        if len(xev) + len(fl) > 50000:
            flush()
    flush()

    def pids(*names):
        return '(%s)' % ','.join(str(p) for p, n in procs.items() if n in names) or '(NULL)'
    x = db.execute
    x('INSERT INTO PYTORCH_API SELECT CAST(s AS TEXT), CAST(e AS TEXT), (pid << 32) | tid, NULL, name, '
      'seqn, fwd, itype, idims, cid, pytype FROM temp.xev WHERE pid IN %s ORDER BY rowid' % pids(python))
    x('INSERT INTO CANN_API SELECT s, e, ctype, ((pid >> 10) << 32) | tid, (1 << 40) + rowid, '
      'coalesce(cname, name) FROM temp.xev WHERE pid IN %s ORDER BY rowid' % pids('CANN'))
    x('INSERT INTO temp.devx SELECT x.s, x.stream, x.taskid, NULL, x.conn FROM temp.xev x '
      'WHERE x.pid IN %s' % pids('Ascend Hardware'))
    # the device tasks that are no kernels: TASK rows named by their type alone
    dt = '(%d, %d)' % (st.id('MEMCPY_ASYNC'), st.id('EVENT_WAIT'))
    x('INSERT INTO TASK SELECT s, e, ?, NULL, (SELECT count(*) FROM TASK) + rowid, NULL, name, ?, stream, taskid, ? '
      'FROM temp.xev WHERE pid IN %s AND name IN %s ORDER BY rowid' % (pids('Ascend Hardware'), dt),
      (device, INVALID, INVALID))
    x('INSERT INTO temp.devx SELECT x.s, NULL, NULL, t.value, x.conn FROM temp.xev x JOIN STRING_IDS t '
      'ON t.id = x.name WHERE x.pid IN %s' % pids('HCCL', 'Communication'))
    x("INSERT INTO temp.fs SELECT (pid << 32) | tid, ts, id FROM temp.fl WHERE cat != 'HostToDevice' "
      "AND pid IN %s" % pids(python))
    x("INSERT INTO temp.hs SELECT tid, ts, id FROM temp.fl WHERE cat = 'HostToDevice' AND pid IN %s"
      % pids('CANN'))
    x('DROP TABLE temp.xev')
    x('DROP TABLE temp.fl')


def link(db):
    """Connection ids from the flows, as the real export joins them."""
    x = db.execute
    x('CREATE INDEX temp.devx_a ON devx (ts, stream, taskid)')
    x('CREATE INDEX temp.devx_n ON devx (ts, name)')
    x('CREATE INDEX temp.hs_i ON hs (tid, ts)')
    x('CREATE INDEX temp.fs_i ON fs (gtid, ts)')
    x('UPDATE TASK SET connectionId = (SELECT d.conn FROM temp.devx d WHERE d.ts = TASK.startNs '
      'AND d.stream = TASK.streamId AND d.taskid = TASK.taskId)')
    x('UPDATE COMMUNICATION_OP SET connectionId = (SELECT d.conn FROM temp.devx d JOIN STRING_IDS s '
      'ON s.value = d.name WHERE d.ts = COMMUNICATION_OP.startNs AND s.id = COMMUNICATION_OP.opName)')
    x('UPDATE CANN_API SET connectionId = (SELECT h.conn FROM temp.hs h WHERE h.tid = '
      '(CANN_API.globalTid & 4294967295) AND h.ts = CANN_API.startNs) WHERE EXISTS (SELECT 1 FROM '
      'temp.hs h WHERE h.tid = (CANN_API.globalTid & 4294967295) AND h.ts = CANN_API.startNs)')
    x('CREATE TEMP TABLE kc AS SELECT startNs AS s, min(connectionId) AS c FROM (SELECT startNs, '
      'connectionId FROM TASK UNION ALL SELECT startNs, connectionId FROM COMMUNICATION_OP) GROUP BY startNs')
    x('CREATE INDEX temp.kc_i ON kc (s)')
    x('INSERT INTO CONNECTION_IDS SELECT p.rowid, k.c FROM PYTORCH_API p JOIN temp.fs f ON '
      'f.gtid = p.globalTid AND f.ts = CAST(p.startNs AS INTEGER) JOIN temp.kc k ON k.s = f.kts '
      'ORDER BY p.rowid')
    x('UPDATE PYTORCH_API SET connectionId = rowid WHERE rowid IN (SELECT id FROM CONNECTION_IDS)')
    x("INSERT INTO STEP_TIME SELECT CAST(substr(s.value, 14) AS INTEGER), CAST(p.startNs AS INTEGER), "
      "CAST(p.endNs AS INTEGER) FROM PYTORCH_API p JOIN STRING_IDS s ON s.id = p.name "
      "WHERE s.value GLOB 'ProfilerStep#[0-9]*' ORDER BY 2")
    for t in ('devx', 'fs', 'hs', 'kc'):
        x('DROP TABLE temp.%s' % t)
