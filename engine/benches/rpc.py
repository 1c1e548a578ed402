#!/usr/bin/env python3
"""`ash rpc` over pipes: warm round trips (cancel of an unknown id, 64-byte read) and a
10,000-frame pipelined burst. Usage: python3 engine/benches/rpc.py target/release/ash"""
import subprocess,struct,time,tempfile,os,sys,threading
ash=sys.argv[1]
ws=tempfile.mkdtemp(); open(os.path.join(ws,'a.txt'),'w').write('x'*64)
def fr(s): b=s.encode(); return struct.pack('>I',len(b))+b
hs="t:0\ni:7\na{ap,al,ah,zp,zl,zh,frm,out,ops,cap,root,n}:\n1,0,0,1,0,0,1048576,65536,1023,15,.,nonce-7\n"
def start():
    p=subprocess.Popen([ash,'rpc'],cwd=ws,stdin=subprocess.PIPE,stdout=subprocess.PIPE,bufsize=0)
    p.stdin.write(fr(hs)); recv(p); return p
def recv(p):
    h=p.stdout.read(4); n=struct.unpack('>I',h)[0]; return p.stdout.read(n)
def rt(p,mk,n):
    lat=[]
    for i in range(n):
        m=fr(mk(i+1)); t=time.perf_counter(); p.stdin.write(m); recv(p); lat.append(time.perf_counter()-t)
    lat.sort(); return lat[len(lat)//2]*1e3, lat[int(len(lat)*.95)]*1e3
cancel=lambda i:f"t:1\ni:{i}\no:k\na{{i}}:\n{i+1000000}\nu{{tok,rec,ms}}:\n64,1,30000\n"
read=lambda i:f"t:1\ni:{i}\no:r\na{{p,m,o,n}}:\n[a.txt],0,0,64\nu{{tok,rec,ms}}:\n1000,16,30000\n"
p=start(); rt(p,cancel,200); print("cancel p50/p95 ms: %.3f %.3f"%rt(p,cancel,3000)); p.stdin.close(); p.wait()
# reads: one session per 500 so the 64 KiB output ceiling is never spent (successes only)
res=[]
for k in range(6):
    p=start(); rt(p,read,50); lat=[]
    for i in range(450):
        m=fr(read(1000+i)); t=time.perf_counter(); p.stdin.write(m); a=recv(p); lat.append(time.perf_counter()-t)
        assert b"\ns:0\n" in a
    res+=lat; p.stdin.close(); p.wait()
res.sort(); print("read p50/p95 ms: %.3f %.3f (%d samples)"%(res[len(res)//2]*1e3,res[int(len(res)*.95)]*1e3,len(res)))
p=start(); burst=b''.join(fr(read(i)) for i in range(1,10001))
t=time.perf_counter()
th=threading.Thread(target=lambda:(p.stdin.write(burst),p.stdin.close())); th.start()
ok=0
for i in range(10000):
    a=recv(p); ok+= b"\ns:0\n" in a
el=time.perf_counter()-t; th.join(); p.wait()
print("burst 10000 reads: %.0f req/s (%d successes before the output ceiling)"%(10000/el,ok))
