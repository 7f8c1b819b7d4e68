#!/usr/bin/env python3
"""level-forward-pipeline-model.py: the ring and wait logic of the forward
pipeline in level-forward-pipeline.patch (msm.cu ba_fwd_stage), one lane:
slot s's map word copied 6 steps ahead, its entries 4, its x copies 2, one
cp.async group a step, `cp.async.wait_group 1` at the top of each step.
Every read must find the slot it wants in its ring place, from a group that
the wait has completed; run for every cnt <= steps < 32. Prints ok."""
import random
MAP, ENT, X, RING = 6, 4, 2, 8
def run(cnt, steps):
    groups=[]  # list of sets of (kind, slot)
    mem={}     # (kind, ringidx) -> (slot, group)
    complete=-1
    def issue(kind, slot, ridx):
        mem[(kind,ridx)]=(slot,len(groups))
        cur.add((kind,slot))
    def read(kind, slot, ridx):
        s,g=mem.get((kind,ridx),(None,None))
        assert s==slot, (kind,slot,s)
        assert g<=complete, (kind,slot,g,complete)
    cur=set()
    for s in range(MAP):
        if s<cnt: issue('map',s,s%RING)
    groups.append(cur); cur=set(); complete=len(groups)-1
    for s in range(ENT):
        if s<cnt: read('map',s,s%RING); issue('ent',s,s%RING)
    groups.append(cur); cur=set(); complete=len(groups)-1
    for s in range(X):
        if s<steps:
            if s<cnt: read('map',s,s%RING); read('ent',s,s%RING)
            if s<cnt: issue('x',s,s%(X+1))
        groups.append(cur); cur=set()
    for j in range(steps):
        complete=len(groups)-1-(X-1)
        if j+MAP<cnt: issue('map',j+MAP,(j+MAP)%RING)
        if j+ENT<cnt: read('map',j+ENT,(j+ENT)%RING); issue('ent',j+ENT,(j+ENT)%RING)
        if j+X<steps and j+X<cnt: read('map',j+X,(j+X)%RING); read('ent',j+X,(j+X)%RING); issue('x',j+X,(j+X)%(X+1))
        groups.append(cur); cur=set()
        if j<cnt: read('map',j,j%RING); read('ent',j,j%RING); read('x',j,j%(X+1))
for cnt in range(0,30):
    for steps in range(max(cnt,1),32):
        run(cnt,steps)
print("ok")
