#!/usr/bin/env python3
"""Where each Spark streaming micro-batch's time goes, from what bench/spark-profile/poll.sh saved.

    bench/spark-profile/batches.py API_DIR [FROM_EPOCH_S TO_EPOCH_S]

Per completed batch whose batch time is in [FROM, TO): the output operations (one per leaf of
the Beam graph) with their Spark jobs (the first computes the leaf, a second with the same call
site writes the RDD checkpoint of a stateful stream), the jobs Spark ran while *generating* the
batch (the Kafka read in SparkUnboundedSource, TimerUtils collecting every key to the driver),
executor time and shuffle bytes by stage name, and the checkpoint directory's growth.
Prints Markdown.
"""
import glob
import json
import os
import statistics
import sys
from collections import defaultdict
from datetime import datetime, timezone


def ts(s):
    return datetime.strptime(s.replace('GMT', ''), '%Y-%m-%dT%H:%M:%S.%f').replace(
        tzinfo=timezone.utc).timestamp()


def main():
    d = sys.argv[1]
    lo = float(sys.argv[2]) if len(sys.argv) > 3 else 0
    hi = float(sys.argv[3]) if len(sys.argv) > 3 else 1e12
    jobs = {j['jobId']: j for j in json.load(open(os.path.join(d, 'jobs.json')))}
    stages = {}
    for s in json.load(open(os.path.join(d, 'stages.json'))):
        if s['status'] == 'COMPLETE':
            stages[s['stageId']] = s
    batches = [b for b in json.load(open(os.path.join(d, 'batches.json')))
               if b['status'] == 'COMPLETED']
    in_op = {}
    ops_by_batch = {}
    for f in glob.glob(os.path.join(d, 'ops', '*.json')):
        bid = int(os.path.basename(f)[:-5])
        ops = json.load(open(f))
        ops_by_batch[bid] = ops
        for op in ops:
            for j in op['jobIds']:
                in_op[j] = (bid, op['outputOpId'])
    interval = batches[0]['batchDuration'] / 1000 if batches else 5

    def job_wall(j):
        if 'completionTime' not in j:
            return 0
        return ts(j['completionTime']) - ts(j['submissionTime'])

    def stage_sum(job_ids, key):
        seen = set()
        tot = 0
        for j in job_ids:
            for sid in jobs[j]['stageIds'] if j in jobs else []:
                if sid in stages and sid not in seen:
                    seen.add(sid)
                    tot += stages[sid][key]
        return tot

    # jobs outside output operations: run while a batch is generated (JobGenerator thread)
    gen_by_batch = defaultdict(list)
    for jid, j in jobs.items():
        if jid in in_op or 'completionTime' not in j:
            continue
        t = ts(j['submissionTime'])
        bt = int(t // interval * interval * 1000)
        gen_by_batch[bt].append(jid)

    rows = []
    by_stage = defaultdict(lambda: defaultdict(float))
    for b in sorted(batches, key=lambda b: b['batchId']):
        bid = b['batchId']
        if not (lo <= bid / 1000 < hi) or bid not in ops_by_batch:
            continue
        ops = sorted(ops_by_batch[bid], key=lambda o: o['outputOpId'])
        r = {'batch': datetime.fromtimestamp(bid / 1000, timezone.utc).strftime('%H:%M:%S'),
             'processing': b['processingTime'] / 1000, 'sched': b['schedulingDelay'] / 1000,
             'jobs': sum(len(o['jobIds']) for o in ops)}
        ckpt = 0
        for o in ops:
            js = sorted(o['jobIds'])
            walls = [job_wall(jobs[j]) for j in js if j in jobs]
            r['op%d' % o['outputOpId']] = o['duration'] / 1000
            r['op%d first job' % o['outputOpId']] = walls[0] if walls else 0
            ckpt += sum(walls[1:])
        r['checkpoint jobs'] = ckpt
        gen = gen_by_batch.get(bid, [])
        r['gen jobs'] = len(gen)
        r['read (gen)'] = sum(job_wall(jobs[j]) for j in gen
                              if 'SparkUnboundedSource' in jobs[j]['name'])
        r['TimerUtils (gen)'] = sum(job_wall(jobs[j]) for j in gen
                                    if 'TimerUtils' in jobs[j]['name'])
        r['other (gen)'] = sum(job_wall(jobs[j]) for j in gen) - r['read (gen)'] - r[
            'TimerUtils (gen)']
        all_jobs = [j for o in ops for j in o['jobIds']] + gen
        r['shuffle read MB'] = stage_sum(all_jobs, 'shuffleReadBytes') / 1e6
        r['shuffle write MB'] = stage_sum(all_jobs, 'shuffleWriteBytes') / 1e6
        r['executor run s'] = stage_sum(all_jobs, 'executorRunTime') / 1000
        r['executor cpu s'] = stage_sum(all_jobs, 'executorCpuTime') / 1e9
        r['jvm gc s'] = stage_sum(all_jobs, 'jvmGcTime') / 1000
        r['stages run'] = len({s for j in all_jobs for s in jobs[j]['stageIds'] if s in stages})
        r['stages skipped'] = sum(jobs[j]['numSkippedStages'] for j in all_jobs)
        rows.append(r)
        seen = set()
        for j in all_jobs:
            where = ('gen' if j in gen else 'op%d' % in_op[j][1])
            for sid in jobs[j]['stageIds']:
                if sid in stages and sid not in seen:
                    seen.add(sid)
                    s = stages[sid]
                    k = (where, s['name'])
                    by_stage[k]['count'] += 1
                    by_stage[k]['run'] += s['executorRunTime'] / 1000
                    by_stage[k]['wall'] += ts(s['completionTime']) - ts(s['submissionTime'])
                    by_stage[k]['sr'] += s['shuffleReadBytes'] / 1e6
                    by_stage[k]['sw'] += s['shuffleWriteBytes'] / 1e6
                    by_stage[k]['tasks'] += s['numTasks']
    if not rows:
        print('no batch in the window')
        return
    cols = list(rows[0].keys())
    print('| ' + ' | '.join(cols) + ' |')
    print('|' + '---|' * len(cols))
    for r in rows:
        print('| ' + ' | '.join(f'{r[c]:.2f}' if isinstance(r[c], float) else str(r[c])
                                for c in cols) + ' |')
    n = len(rows)
    print(f'\nMeans over {n} batches:\n')
    print('| ' + ' | '.join(cols[1:]) + ' |')
    print('|' + '---:|' * (len(cols) - 1))
    print('| ' + ' | '.join(f'{statistics.mean(r[c] for r in rows):.2f}' for c in cols[1:]) + ' |')
    print(f'\nStages per batch (mean over {n} batches), by where they run and call site:\n')
    print('| where | stage name (call site) | stages/batch | tasks/batch | wall s/batch |'
          ' executor run s/batch | shuffle read MB/batch | shuffle write MB/batch |')
    print('|---|---|---:|---:|---:|---:|---:|---:|')
    for (where, name), v in sorted(by_stage.items(), key=lambda kv: -kv[1]['run']):
        print(f"| {where} | {name} | {v['count'] / n:.1f} | {v['tasks'] / n:.0f} |"
              f" {v['wall'] / n:.2f} | {v['run'] / n:.2f} | {v['sr'] / n:.3f} | {v['sw'] / n:.3f} |")
    du = os.path.join(d, 'checkpoint-du.tsv')
    if os.path.exists(du):
        pts = [l.split('\t') for l in open(du).read().splitlines()[1:]]
        pts = [(float(t), float(l), int(b), int(f)) for t, l, b, f in pts if lo <= float(t) < hi]
        if len(pts) > 1:
            print(f'\nCheckpoint directory over the window: {pts[0][2] / 1e6:.1f} MB ->'
                  f' {pts[-1][2] / 1e6:.1f} MB, {pts[0][3]} -> {pts[-1][3]} files;'
                  f' load average (1 min) {min(p[1] for p in pts):.1f}-{max(p[1] for p in pts):.1f}')


if __name__ == '__main__':
    main()
