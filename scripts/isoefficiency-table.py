#!/usr/bin/env python3
"""The isoefficiency tables of results/isoefficiency/README.md: the
efficiency per balancer, P and tree size from the campaign's summary CSV,
and per efficiency E the tree size W(P) that reaches it, interpolated
log-linearly between the two measured sizes that bracket E ("<= W" when the
smallest size already reaches it), with the exponent of W(256)/W(16)
against P. Run from the repository root:

    python3 scripts/isoefficiency-table.py
"""
import argparse,csv,math
argparse.ArgumentParser(description=__doc__,formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
rows=list(csv.DictReader(open('results/isoefficiency/isoefficiency-summary.csv')))
W={6:16000,7:63914,8:257042,9:1031269,10:4130071,11:16526523}
E={}
for r in rows:
  if r['balancer']=='seq': continue
  d=int(r['instance'].split()[-1]); b=r['balancer']
  if b.startswith('hybrid --levels'): b='hybrid §6 (levels = clusters = ⌈log₂ P⌉)'
  E[(b,int(r['np']),d)]=float(r['efficiency'])
def iso(b,p,e0):
  pts=[(W[d],E[(b,p,d)]) for d in range(6,12) if (b,p,d) in E]
  for (w1,e1),(w2,e2) in zip(pts,pts[1:]):
    if e1<e0<=e2:
      f=(e0-e1)/(e2-e1); return math.exp(math.log(w1)+f*(math.log(w2)-math.log(w1)))
    if e1>=e0: return -w1
  return None
bs=['static','hybrid --clusters 8','hybrid §6 (levels = clusters = ⌈log₂ P⌉)','rp']
print('| balancer | P | '+' | '.join('%s nodes'%(W[d]) for d in range(6,12))+' |')
print('|---|---:|'+'---:|'*6)
for b in bs:
  for p in [16,64,256,1024]:
    print('| %s | %d | '%(b,p)+' | '.join('%.3f'%E[(b,p,d)] for d in range(6,12))+' |')
print()
for e0 in (0.15,0.25,0.5):
  print('| balancer | E | P = 16 | 64 | 256 | 1024 | exponent 16→256 |')
  print('|---|---:|---:|---:|---:|---:|---:|')
  for b in bs:
    ws=[iso(b,p,e0) for p in [16,64,256,1024]]
    ex='%.2f'%(math.log(ws[2]/ws[0])/math.log(16)) if ws[0] and ws[2] and ws[0]>0 and ws[2]>0 else '—'
    fmt=lambda w: 'not reached' if w is None else ('≤ %.3g'%-w if w<0 else '%.3g'%w)
    print('| %s | %.2f | '%(b,e0)+' | '.join(fmt(w) for w in ws)+' | %s |'%ex)
  print()
