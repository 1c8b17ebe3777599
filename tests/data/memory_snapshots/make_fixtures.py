#!/usr/bin/env python3
"""Writes the hand-made allocator-snapshot pickles of this folder (committed; rerun to rebuild).

Only pickle.dumps of plain dicts, lists, tuples, str, int, float, bool and None: the files are
data, and gpuwhy reads them with its restricted decoder (never a general unpickler).

  snapshot_protocol{0,1,4}.pickle  one snapshot-shaped dict at protocols 0 and 1 (text opcodes,
                                   no PROTO) and 4: they must read the same (issue 38)
  oom_fragmented.pickle            an OOM whose request the free blocks held in all but in no one
                                   block (256 MiB free in 8 blocks of 32 MiB, 128 MiB asked)
  oom_full.pickle                  an OOM whose request not even all free blocks held (128 MiB
                                   free, 256 MiB asked); both dumped after the exception freed
                                   everything, so the end state alone shows one free 1 GiB block
"""
import os
import pickle

HERE = os.path.dirname(os.path.abspath(__file__))
MiB = 1 << 20
BASE = 0x7F00_0000_0000  # a device address past 2**31: protocols 0/1 write it as text LONG


def frames(name, line):
    return [{'name': name, 'filename': 'modèle/train.py', 'line': line},
            {'name': 'backward', 'filename': "it's \\ a\npath.py", 'line': 7}]


def protocol_snapshot():
    shared = frames('forward', 42)  # one list referenced three times: memo PUT/GET at every protocol
    return {
        'segments': [
            {'device': 0, 'address': BASE, 'total_size': 20 * MiB, 'allocated_size': 8 * MiB,
             'active_size': 8 * MiB, 'requested_size': 8 * MiB - 512, 'stream': 0,
             'segment_type': 'large', 'segment_pool_id': (0, 0), 'is_expandable': False,
             'frames': [],
             'blocks': [
                 {'address': BASE, 'size': 8 * MiB, 'requested_size': 8 * MiB - 512,
                  'state': 'active_allocated', 'frames': shared},
                 {'address': BASE + 8 * MiB, 'size': 12 * MiB, 'requested_size': 0,
                  'state': 'inactive', 'frames': []}]},
            {'device': 0, 'address': BASE + 64 * MiB, 'total_size': 2 * MiB,
             'allocated_size': 512, 'active_size': 512, 'requested_size': 500, 'stream': 0,
             'segment_type': 'small', 'segment_pool_id': (0, 0), 'is_expandable': False,
             'frames': [],
             'blocks': [
                 {'address': BASE + 64 * MiB, 'size': 512, 'requested_size': 500,
                  'state': 'active_allocated', 'frames': shared},
                 {'address': BASE + 64 * MiB + 512, 'size': 2 * MiB - 512, 'requested_size': 0,
                  'state': 'inactive', 'frames': []}]},
        ],
        'device_traces': [[
            {'action': 'segment_alloc', 'addr': BASE, 'size': 20 * MiB, 'stream': 0,
             'time_us': 1_700_000_000_000_001, 'frames': shared},
            {'action': 'alloc', 'addr': BASE, 'size': 8 * MiB, 'stream': 0,
             'time_us': 1_700_000_000_000_002, 'frames': shared},
            {'action': 'segment_alloc', 'addr': BASE + 64 * MiB, 'size': 2 * MiB, 'stream': 0,
             'time_us': 1_700_000_000_000_003, 'frames': frames('embed', 9)},
            {'action': 'alloc', 'addr': BASE + 64 * MiB, 'size': 512, 'stream': 0,
             'time_us': 1_700_000_000_000_004, 'frames': frames('embed', 9)},
        ]],
        'allocator_settings': {'PYTORCH_CUDA_ALLOC_CONF': 'garbage_collection_threshold:0.8',
                               'max_split_size': -1, 'expandable_segments': False,
                               'garbage_collection_threshold': 0.8},
        # Values no snapshot needs, there for the decoder: wider than int64 both ways, None,
        # a float with an exponent, bools, a tuple and an empty one.
        'extra': [10**20, -(2**70), None, 1.5e-300, True, False, (1, 'two', 3.0), ()],
    }


def oom_snapshot(live_mib, gap_mib, request_mib, never_used_mib=0):
    """One 1 GiB segment filled with live blocks of |live_mib| each followed by a block of
    |gap_mib| freed before the OOM, its last |never_used_mib| never allocated; the OOM asks for
    |request_mib|; then everything is freed."""
    seg = 1024 * MiB
    where = frames('forward', 42)
    trace = [{'action': 'segment_alloc', 'addr': BASE, 'size': seg, 'stream': 0, 'frames': where}]
    live, gaps, at = [], [], 0
    while at + (live_mib + gap_mib) * MiB <= seg - never_used_mib * MiB:
        live.append((BASE + at, live_mib * MiB))
        at += live_mib * MiB
        if gap_mib:
            gaps.append((BASE + at, gap_mib * MiB))
            at += gap_mib * MiB
    for addr, size in sorted(live + gaps):
        trace.append({'action': 'alloc', 'addr': addr, 'size': size, 'stream': 0, 'frames': where})
    for addr, size in gaps:
        trace.append({'action': 'free_requested', 'addr': addr, 'size': size, 'stream': 0,
                      'frames': where})
        trace.append({'action': 'free_completed', 'addr': addr, 'size': size, 'stream': 0,
                      'frames': where})
    trace.append({'action': 'oom', 'device_free': 20 * MiB, 'size': request_mib * MiB,
                  'stream': 0, 'frames': where})
    for addr, size in live:  # the exception unwinds and frees the step's tensors
        trace.append({'action': 'free_completed', 'addr': addr, 'size': size, 'stream': 0,
                      'frames': where})
    for i, entry in enumerate(trace):
        entry['time_us'] = 1_700_000_000_000_000 + 10 * i
    return {
        'segments': [{'device': 0, 'address': BASE, 'total_size': seg, 'allocated_size': 0,
                      'active_size': 0, 'requested_size': 0, 'stream': 0,
                      'segment_type': 'large', 'segment_pool_id': (0, 0),
                      'is_expandable': False, 'frames': where,
                      'blocks': [{'address': BASE, 'size': seg, 'requested_size': 0,
                                  'state': 'inactive', 'frames': []}]}],
        'device_traces': [trace],
        'allocator_settings': {'PYTORCH_CUDA_ALLOC_CONF': '', 'max_split_size': -1,
                               'expandable_segments': False},
    }


def write(name, obj, protocol):
    with open(os.path.join(HERE, name), 'wb') as f:
        f.write(pickle.dumps(obj, protocol=protocol))


def main():
    for protocol in (0, 1, 4):
        write(f'snapshot_protocol{protocol}.pickle', protocol_snapshot(), protocol)
    write('oom_fragmented.pickle', oom_snapshot(96, 32, 128), 4)
    write('oom_full.pickle', oom_snapshot(128, 0, 256, never_used_mib=128), 4)


if __name__ == '__main__':
    main()
