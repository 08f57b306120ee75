#!/usr/bin/env python3
# bench/rename20.py: rename 20 prometheus functions whose rename is complete (every occurrence linked),
# apply each on a copy (re-analyzing between), then build and vet it. usage: python3 bench/rename20.py REPO_COPY
# (gitnexus from $GITNEXUS_BIN, default bin/gitnexus; GITNEXUS_HOME set to a scratch registry).
import json,subprocess,os,random,sys
B=os.environ.get('GITNEXUS_BIN', os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'bin', 'gitnexus')); repo=sys.argv[1]
env=dict(os.environ)
def run(args):
    p=subprocess.run([B]+args,cwd=repo,capture_output=True,text=True,env=env); return p
rows=[]
off=0
while True:
    p=run(['cypher','--json','-n','1000',f"MATCH (f:Function) WHERE NOT f.isTest AND NOT f.filePath CONTAINS 'vendor' RETURN f.id, f.name ORDER BY f.id SKIP {off} LIMIT 1000"])
    page=json.loads(p.stdout)['rows']; rows+=page; off+=1000
    if len(page)<1000: break
random.seed(11); random.shuffle(rows)
done=[]; incomplete=0; tried=0
for fid,name in rows:
    if len(done)>=20: break
    if name in ('main','init') or name.startswith('Test'): continue
    tried+=1
    p=run(['rename','--uid',fid,name+'Rn','--json','--max-tokens','100000'])
    try: o=json.loads(p.stdout)
    except Exception: continue
    if o.get('complete') and any(e['kind']=='call' for e in o['edits']):
        a=run(['rename','--uid',fid,name+'Rn','--apply'])
        if a.returncode!=0: print('apply failed',fid,a.stderr[-200:]); continue
        done.append((fid,len(o['edits'])))
        run(['analyze','--skip-embeddings','.'])
    else: incomplete+=1
print(json.dumps({'tried':tried,'applied':len(done),'incomplete':incomplete,'symbols':done}))
