// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `trigrec show --html` and `--chrome-json`. The page is one file with its
 * data, CSS and JavaScript inline (no network: it is opened where the
 * snapshot was copied to, often offline); the timeline is SVG built by the
 * script, zoomed with a transform so a redraw costs nothing per record.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "show/show.h"

static void html_text(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		switch (s[i]) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(s[i], f);
		}
	}
}

/* The page's script: builds the SVG from the JSON in #data, then zoom, pan and hover. */
static const char page_js[] =
	"(function(){\n"
	"const T0=performance.now();\n"
	"const D=JSON.parse(document.getElementById('data').textContent);\n"
	"const NS='http://www.w3.org/2000/svg';\n"
	"const LW=80, LH=46, TOP=28, span=Math.max(1,D.win[1]-D.win[0]);\n"
	"const svg=document.getElementById('tl');\n"
	"let W=Math.max(400,document.getElementById('wrap').clientWidth-LW-10);\n"
	"const NL=D.cpus.length+(D.why?1:0),H=TOP+NL*LH+10;\n"
	"svg.setAttribute('width',LW+W+10); svg.setAttribute('height',H);\n"
	"function el(tag,attrs,parent){const e=document.createElementNS(NS,tag);"
	"for(const k in attrs)e.setAttribute(k,attrs[k]);if(parent)parent.appendChild(e);return e;}\n"
	"const laneOf={}; D.cpus.forEach((c,i)=>laneOf[c]=i);\n"
	"const pal=['#1f77b4','#2ca02c','#9467bd','#8c564b','#e377c2','#17becf','#bcbd22','#7f7f7f','#ff7f0e','#393b79'];\n"
	"function tcol(tid){let h=(tid*2654435761)>>>0;return 'hsl('+(h%360)+',55%,'+(62+(h>>9)%16)+'%)';}\n"
	"const defs=el('defs',{},svg);const cp=el('clipPath',{id:'clip'},defs);"
	"el('rect',{x:LW,y:0,width:W,height:H},cp);\n"
	"const mk=el('marker',{id:'arrow',viewBox:'0 0 10 10',refX:10,refY:5,markerWidth:6,markerHeight:6,orient:'auto'},defs);"
	"el('path',{d:'M0 0L10 5L0 10z',fill:'#444'},mk);\n"
	"const lanes=el('g',{id:'lanes'},svg);\n"
	"D.cpus.forEach((c,i)=>{const g=el('g',{'class':'lane','data-cpu':c},lanes);"
	"el('rect',{x:LW,y:TOP+i*LH,width:W,height:LH-4,'class':'lanebg'},g);"
	"const t=el('text',{x:6,y:TOP+i*LH+LH/2+2,'class':'lanelabel'},g);t.textContent='CPU '+c;});\n"
	"const WL=D.cpus.length,WY=TOP+WL*LH;\n"
	"if(D.why){const g=el('g',{'class':'whylane'},lanes);el('rect',{x:LW,y:WY,width:W,height:LH-4,'class':'lanebg'},g);"
	"const t=el('text',{x:6,y:WY+LH/2-4,'class':'lanelabel'},g);t.textContent='why';"
	"const t2=el('text',{x:6,y:WY+LH/2+10,'class':'lanelabel'},g);t2.textContent='tid '+D.why.tid;}\n"
	"const clip=el('g',{'clip-path':'url(#clip)'},svg);\n"
	"const view=el('g',{id:'view'},clip);\n"
	"function bx(t){return t/span*W;}\n"
	"function ctr(p){const c=D.ctr&&D.ctr[p];return c?' ['+esc(c)+']':'';}\n"
	"const gs=el('g',{id:'spans'},view);\n"
	"D.spans.forEach(s=>{const r=el('rect',{x:bx(s.s),y:TOP-6,width:Math.max(bx(s.e)-bx(s.s),0.0001),"
	"height:D.cpus.length*LH+2,'class':'span '+s.kind},gs);"
	"const t=el('title',{},r);t.textContent=s.label;});\n"
	"const gr=el('g',{id:'runs'},view);\n"
	"D.runs.forEach(r=>{const i=laneOf[r[0]];if(i===undefined)return;"
	"el('rect',{x:bx(r[1]),y:TOP+i*LH+2,width:Math.max(bx(r[2])-bx(r[1]),0.0001),height:20,"
	"fill:tcol(r[4]),'class':'run'},gr);});\n"
	"const gm=el('g',{id:'marks'},view);\n"
	"const byLane=D.cpus.map(()=>[]);\n"
	/* one element per record while the DOM copes; beyond, one path per lane and event (same marks) */
	"const MANY=20000;\n"
	"if(D.recs.length<=MANY){D.recs.forEach((r,k)=>{const i=laneOf[r[1]];byLane[i].push(k);"
	"el('line',{x1:bx(r[0]),x2:bx(r[0]),y1:TOP+i*LH+25,y2:TOP+i*LH+40,stroke:pal[r[2]%pal.length],"
	"'class':'mark'},gm);});}\n"
	"else{const ds=new Map();D.recs.forEach((r,k)=>{const i=laneOf[r[1]];byLane[i].push(k);const key=i*1000+r[2];"
	"let a=ds.get(key);if(!a)ds.set(key,a=[]);a.push('M'+bx(r[0]).toFixed(4)+' '+(TOP+i*LH+25)+'v15');});"
	"for(const [key,a] of ds)el('path',{d:a.join(''),stroke:pal[(key%1000)%pal.length],'class':'marks',"
	"'data-n':a.length},gm);}\n"
	/* the triggering thread's states: one rect per stretch, its ns in data-ns; wake-ups as arrows */
	"const SC=['#e0e0e0','#2ca02c','#ff7f0e','#9ecae1','#d62728','#7f7f7f'];\n"
	"if(D.why){const gw=el('g',{id:'why'},view);D.why.segs.forEach(q=>{"
	"el('rect',{x:bx(q[0]),y:WY+4,width:Math.max(bx(q[1])-bx(q[0]),0.0001),height:LH-12,fill:SC[q[2]],"
	"'class':'whyseg st'+q[2],'data-ns':q[1]-q[0]},gw);});"
	"D.why.wakes.forEach(k=>{const i=laneOf[k[2]];if(i===undefined)return;"
	"el('line',{x1:bx(k[0]),x2:bx(k[0]),y1:TOP+i*LH+LH/2,y2:WY+4,'class':'wake','marker-end':'url(#arrow)'},gw);});}\n"
	"const runsByLane=D.cpus.map(()=>[]);D.runs.forEach((r,k)=>{const i=laneOf[r[0]];if(i!==undefined)runsByLane[i].push(k);});\n"
	"if(D.trig){const x=bx(D.trig.t);"
	"el('line',{id:'trigger',x1:x,x2:x,y1:TOP-8,y2:TOP+NL*LH,'class':'trigger'},view);}\n"
	"const axis=el('g',{id:'axis'},svg);\n"
	"const labels=el('g',{id:'labels','clip-path':'url(#clip)'},svg);\n"
	"let v0=0,v1=span;\n"
	"function fmt(ns){const a=Math.abs(ns);let s;if(a>=1e9)s=(ns/1e9).toFixed(3)+' s';"
	"else if(a>=1e6)s=(ns/1e6).toFixed(3)+' ms';else if(a>=1e3)s=(ns/1e3).toFixed(3)+' us';"
	"else s=ns.toFixed(0)+' ns';return s;}\n"
	"const ref=D.trig?D.trig.t:0;\n"
	"function draw(){const sx=span/(v1-v0);"
	"view.setAttribute('transform','translate('+(LW-bx(v0)*sx)+',0) scale('+sx+',1)');"
	"while(axis.firstChild)axis.removeChild(axis.firstChild);"
	"while(labels.firstChild)labels.removeChild(labels.firstChild);"
	"for(const u of D.runs){const i=laneOf[u[0]];if(i===undefined||u[2]<v0||u[1]>v1)continue;"
	"const a=LW+(Math.max(u[1],v0)-v0)/(v1-v0)*W,b=LW+(Math.min(u[2],v1)-v0)/(v1-v0)*W;"
	"if(b-a<70)continue;const l=el('text',{x:a+3,y:TOP+i*LH+16,'class':'runlabel'},labels);"
	"l.textContent=u[5]+' '+u[4];}"
	"const raw=(v1-v0)/8, p=Math.pow(10,Math.floor(Math.log10(raw)));"
	"const step=[1,2,5,10].map(m=>m*p).find(s=>s>=raw)||raw;"
	"for(let t=Math.ceil((v0-ref)/step)*step+ref;t<=v1;t+=step){const x=LW+(t-v0)/(v1-v0)*W;"
	"el('line',{x1:x,x2:x,y1:TOP-10,y2:TOP-4,'class':'tick'},axis);"
	"const l=el('text',{x:x+2,y:TOP-12,'class':'ticklabel'},axis);"
	"l.textContent=(t-ref>0?'+':'')+fmt(t-ref);}"
	"document.getElementById('range').textContent='view '+fmt(v0-ref)+' .. '+fmt(v1-ref)+"
	"(D.trig?' from the trigger':' from the window start')+' ('+fmt(v1-v0)+' wide)';}\n"
	"draw();\n"
	"function tAt(px){return v0+(px-LW)/W*(v1-v0);}\n"
	/*
	 * Zoom around the time under the cursor; on the trigger's mark (within
	 * 3 px: an event's coordinates are whole pixels), around the trigger
	 * itself, so that it stays in view even at the window's right end.
	 */
	"svg.addEventListener('wheel',e=>{e.preventDefault();const r=svg.getBoundingClientRect();"
	"const px=e.clientX-r.left,tg=D.trig?D.trig.t:-1,"
	"t=D.trig&&tg>=v0&&tg<=v1&&Math.abs(LW+(tg-v0)/(v1-v0)*W-px)<=3?tg:tAt(px),"
	"f=Math.pow(1.0015,e.deltaY);"
	"let w=Math.min(span,Math.max(1000,(v1-v0)*f));v0=t-(t-v0)*w/(v1-v0);v1=v0+w;"
	"if(v0<0){v1-=v0;v0=0;}if(v1>span){v0-=v1-span;v1=span;}draw();},{passive:false});\n"
	"let drag=null;svg.addEventListener('mousedown',e=>{drag={x:e.clientX,v0:v0,v1:v1};});\n"
	"window.addEventListener('mouseup',()=>{drag=null;});\n"
	"svg.addEventListener('dblclick',()=>{v0=0;v1=span;draw();});\n"
	"const tip=document.getElementById('tip');\n"
	"function near(list,t,get){let lo=0,hi=list.length;while(lo<hi){const m=(lo+hi)>>1;"
	"if(get(list[m])<t)lo=m+1;else hi=m;}let best=-1,bd=Infinity;"
	"for(const k of [lo-1,lo]){if(k<0||k>=list.length)continue;const d=Math.abs(get(list[k])-t);"
	"if(d<bd){bd=d;best=list[k];}}return [best,bd];}\n"
	"svg.addEventListener('mousemove',e=>{const r=svg.getBoundingClientRect();"
	"if(drag){const dt=(e.clientX-drag.x)/W*(drag.v1-drag.v0);let a=drag.v0-dt,b=drag.v1-dt;"
	"if(a<0){b-=a;a=0;}if(b>span){a-=b-span;b=span;}v0=a;v1=b;draw();tip.style.display='none';return;}"
	"const x=e.clientX-r.left,y=e.clientY-r.top,i=Math.floor((y-TOP)/LH);"
	"if(i<0||i>=NL||x<LW){tip.style.display='none';return;}"
	"const t=tAt(x),px=(v1-v0)/W;let h='';"
	"if(i===WL){const q=whyAt(t);if(q)h=whyTip(q);}else{"
	"const [k,d]=near(byLane[i],t,k=>D.recs[k][0]);"
	"if(k>=0&&d<=5*px){const q=D.recs[k];h='<b>'+esc(D.events[q[2]])+'</b> '+fmt(q[0]-ref)+"
	"(D.trig?' from the trigger':'')+'<br>'+D.t0s(q[0])+' CPU '+q[1]+'<br>'+esc(q[5])+' '+q[3]+'/'+q[4]+ctr(q[3])+"
	"'<br>'+esc(q[6]).replace(/ (?=[a-z_0-9]+=)/g,'<br>');}"
	"else{for(const k2 of runsByLane[i]){const u=D.runs[k2];if(u[1]<=t&&t<=u[2]){"
	"h='<b>'+esc(u[5])+'</b> '+u[3]+'/'+u[4]+ctr(u[3])+' on CPU '+u[0]+'<br>ran '+fmt(u[2]-u[1])+"
	"' from '+fmt(u[1]-ref)+(D.trig?' (from the trigger)':'');break;}}}}"
	"if(!h){tip.style.display='none';return;}tip.innerHTML=h;tip.style.display='block';"
	"tip.style.left=(e.pageX+12)+'px';tip.style.top=(e.pageY+12)+'px';});\n"
	"svg.addEventListener('mouseleave',()=>{tip.style.display='none';});\n"
	"function whyAt(t){if(!D.why)return null;const a=D.why.segs;let lo=0,hi=a.length;"
	"while(lo<hi){const m=(lo+hi)>>1;if(a[m][1]<t)lo=m+1;else hi=m;}return lo<a.length&&a[lo][0]<=t?a[lo]:null;}\n"
	"function whyTip(q){const st=D.why.states[q[2]];"
	"return '<b>'+esc(D.why.comm)+' '+D.why.tid+': '+esc(st)+(q[2]===1||q[2]===2?' on CPU '+q[3]:'')+'</b> '+fmt(q[1]-q[0])+"
	"'<br>from '+fmt(q[0]-ref)+(D.trig?' (from the trigger)':'')+(q[4]?'<br>ran instead: '+esc(q[4]):'');}\n"
	"function esc(s){return String(s).replace(/[&<>\"]/g,c=>({'&':'&amp;','<':'&lt;','>':'&gt;','\"':'&quot;'}[c]));}\n"
	"D.t0s=function(rel){const b=BigInt(D.t0)+BigInt(Math.round(rel));const s=b/1000000000n,n=b%1000000000n;"
	"return s+'.'+n.toString().padStart(9,'0');};\n"
	"const lg=document.getElementById('legend');\n"
	"D.events.forEach((n,i)=>{if(!D.evcount[i])return;const s=document.createElement('span');s.className='ev';"
	"s.innerHTML='<i style=\"background:'+pal[i%pal.length]+'\"></i>'+esc(n)+' ('+D.evcount[i]+')';lg.appendChild(s);});\n"
	"D.spans.forEach(sp=>{const s=document.createElement('span');s.className='ev';"
	"s.innerHTML='<i class=\"sw '+sp.kind+'\"></i>'+esc(sp.label);lg.appendChild(s);});\n"
	"if(D.trig){const s=document.createElement('span');s.className='ev';"
	"s.innerHTML='<i class=\"sw trig\"></i>trigger '+esc(D.trig.name);lg.appendChild(s);}\n"
	"if(D.why)D.why.states.forEach((n,i)=>{const s=document.createElement('span');s.className='ev';"
	"s.innerHTML='<i style=\"background:'+SC[i]+'\"></i>why: '+esc(n);lg.appendChild(s);});\n"
	"document.body.dataset.lanes=document.querySelectorAll('g.lane').length;\n"
	/* the lane's sums per state, from the drawn rects: what the tests hold to show --json */
	"if(D.why){const sum={};document.querySelectorAll('rect.whyseg').forEach(r=>{const st=D.why.states[+r.classList[1].slice(2)];"
	"sum[st]=(sum[st]||0)+(+r.dataset.ns);});D.why.states.forEach(n=>{"
	"document.body.dataset['why'+n.replace(/(^| )(.)/g,(m,a,c)=>c.toUpperCase())]=sum[n]||0;});"
	"document.body.dataset.whySegs=document.querySelectorAll('rect.whyseg').length;"
	"document.body.dataset.whyWakes=document.querySelectorAll('line.wake').length;}\n"
	"let nm=document.querySelectorAll('line.mark').length;"
	"document.querySelectorAll('path.marks').forEach(p=>nm+=+p.dataset.n);document.body.dataset.marks=nm;\n"
	"document.body.dataset.runs=document.querySelectorAll('rect.run').length;\n"
	"document.body.dataset.rendered='yes';\n"
	"document.body.dataset.ms=(performance.now()-T0).toFixed(0);\n"
	/* #selftest: drive hover, wheel and drag as a user would; the tests read the results from the DOM */
	"if(location.hash==='#selftest'&&D.trig){const r=svg.getBoundingClientRect(),i=laneOf[D.trig.cpu];"
	"const mx=t=>r.left+LW+(t-v0)/(v1-v0)*W,my=r.top+TOP+i*LH+32;"
	"svg.dispatchEvent(new MouseEvent('mousemove',{clientX:mx(D.trig.t),clientY:my,bubbles:true}));"
	"document.body.dataset.tip=tip.textContent;"
	"const w0=v1-v0;svg.dispatchEvent(new WheelEvent('wheel',{deltaY:-600,clientX:mx(D.trig.t),"
	"clientY:my,bubbles:true,cancelable:true}));"
	"document.body.dataset.zoom=(w0/(v1-v0)).toFixed(2);"
	"document.body.dataset.trigInView=(D.trig.t>=v0&&D.trig.t<=v1)?'yes':'no';"
	"const a0=v0,x0=mx((v0+v1)/2);svg.dispatchEvent(new MouseEvent('mousedown',{clientX:x0,clientY:my,bubbles:true}));"
	"svg.dispatchEvent(new MouseEvent('mousemove',{clientX:x0+W/4,clientY:my,bubbles:true}));"
	"window.dispatchEvent(new MouseEvent('mouseup',{}));"
	"document.body.dataset.pan=(v0<a0)?'left':(v0>a0?'right':'none');"
	"svg.dispatchEvent(new MouseEvent('dblclick',{bubbles:true}));"
	"document.body.dataset.reset=(v0===0&&v1===span)?'yes':'no';}\n"
	"if(location.hash==='#selftest'&&D.why){const q=D.why.segs.find(q=>q[2]===2)||D.why.segs[0];"
	"if(q){const r=svg.getBoundingClientRect(),t=(q[0]+q[1])/2;"
	"svg.dispatchEvent(new MouseEvent('mousemove',{clientX:r.left+LW+(t-v0)/(v1-v0)*W,clientY:r.top+WY+LH/2,bubbles:true}));"
	"document.body.dataset.whyTip=tip.textContent;}}\n"
	"})();\n";

static const char page_css[] =
	"body{font:13px/1.4 system-ui,sans-serif;margin:12px;color:#222;background:#fff}\n"
	"h1{font-size:16px;margin:0 0 6px}\n"
	".cut{background:#fff3cd;padding:4px 8px}\n"
	"pre{font:12px/1.35 ui-monospace,monospace;background:#f6f6f6;padding:8px;overflow:auto;max-height:none}\n"
	"#wrap{border:1px solid #ccc;overflow:hidden;user-select:none;cursor:crosshair}\n"
	".lanebg{fill:#fafafa;stroke:#e3e3e3}.lanelabel{font-size:12px;fill:#444}\n"
	".mark,.marks{stroke-width:1px;vector-effect:non-scaling-stroke;fill:none}\n"
	".run{stroke:none;opacity:.9}.runlabel{font-size:11px;fill:#111;pointer-events:none}\n"
	".trigger{stroke:#d62728;stroke-width:2px;vector-effect:non-scaling-stroke}\n"
	".span{stroke:none}.span.latency{fill:rgba(255,127,14,.22)}.span.rate{fill:rgba(148,103,189,.22)}"
	".span.post{fill:rgba(120,120,120,.18)}\n"
	".tick{stroke:#999;vector-effect:non-scaling-stroke}.ticklabel{font-size:10px;fill:#666}\n"
	"#tip{position:absolute;display:none;background:#fffff0;border:1px solid #aaa;padding:4px 6px;"
	"font:12px ui-monospace,monospace;max-width:520px;pointer-events:none;box-shadow:1px 1px 4px #0003}\n"
	"#legend .ev{display:inline-block;margin:2px 12px 2px 0}#legend i{display:inline-block;width:10px;height:10px;"
	"margin-right:4px;vertical-align:-1px}\n"
	"i.sw.latency{background:rgba(255,127,14,.45)}i.sw.rate{background:rgba(148,103,189,.45)}"
	"i.sw.post{background:rgba(120,120,120,.4)}i.sw.trig{background:#d62728;width:3px}\n"
	"#range{color:#555;margin:4px 0}\n"
	".whyseg{stroke:none}.wake{stroke:#444;stroke-width:1px;vector-effect:non-scaling-stroke}\n";

void show_view_pick(const struct show *s, size_t max, struct show_view *v)
{
	size_t k = s->nr, kb, ka;

	if (s->trig_rec >= 0) {
		k = (size_t)s->trig_rec + 1;
	} else if (s->has_trigger) {
		size_t lo = 0, hi = s->nr;

		/* the first record after the trigger: the records are in time order */
		while (lo < hi) {
			size_t m = lo + (hi - lo) / 2;

			if (s->recs[m].time <= s->trig_time)
				lo = m + 1;
			else
				hi = m;
		}
		k = lo;
	}
	if (!max || max >= s->nr) {
		kb = k;
		ka = s->nr - k;
	} else {
		ka = s->nr - k < max / 4 ? s->nr - k : max / 4;
		kb = k < max - ka ? k : max - ka;
		ka = s->nr - k < max - kb ? s->nr - k : max - kb;
	}
	v->lo = k - kb;
	v->hi = k + ka;
	v->cut = v->hi - v->lo < s->nr;
	v->t0 = v->lo ? s->recs[v->lo].time : s->win_start;
	v->t1 = v->hi == s->nr ? s->win_end : 0; /* then at least the last record kept */
	if (v->hi > v->lo && v->t1 < s->recs[v->hi - 1].time)
		v->t1 = s->recs[v->hi - 1].time;
	if (v->t1 < v->t0)
		v->t1 = v->t0;
}

/* A run seen in view v: cut to it; 0 if it lies outside. */
static int run_in_view(const struct show_run *r, const struct show_view *v, uint64_t *a,
		       uint64_t *b)
{
	if (!v->cut) { /* all of it, as recorded */
		*a = r->start;
		*b = r->end;
		return 1;
	}
	if (r->end <= v->t0 || r->start > v->t1)
		return 0;
	*a = r->start < v->t0 ? v->t0 : r->start;
	*b = r->end > v->t1 ? v->t1 : r->end;
	return 1;
}

/*
 * The triggering thread's lane (the why section's stretches, cut to the
 * view): [start, end, state, cpu, who ran instead] relative to t0, and the
 * wake-ups ([time, waker tid, cpu, waker comm]). null when nothing is told.
 */
static void why_lane_json(const struct show *s, const struct show_view *v, FILE *out)
{
	struct show_why *w = s->sc ? malloc(sizeof(*w)) : NULL;
	char who[400], d[48];
	int first = 1;

	if (!w || show_why(s, s->why_span_ns, w) || !w->done) {
		if (w)
			show_why_free(w);
		free(w);
		fputs("null", out);
		return;
	}
	fprintf(out, "{\"tid\":%u,\"comm\":", w->tid);
	show_json_str(out, w->comm);
	fputs(",\"states\":[", out);
	for (int i = 0; i < WHY_NR_ST; i++) {
		fputs(i ? "," : "", out);
		show_json_str(out, show_why_state(i));
	}
	fputs("],\"segs\":[", out);
	for (size_t i = 0; i < w->nr_segs; i++) {
		const struct why_seg *g = &w->segs[i];
		uint64_t a = g->a > v->t0 ? g->a : v->t0, b = g->b < v->t1 ? g->b : v->t1;

		if (b <= a || g->st < 0 || g->st >= WHY_NR_ST)
			continue;
		who[0] = 0;
		if (g->st == WHY_ST_RUNNABLE) {
			struct why_task top[3];
			uint64_t none = 0;
			size_t n = show_why_ran_on(s, g->cpu, a, b, w->tid, top, 3, &none), k = 0;

			for (size_t j = 0; j < n && j < 3; j++)
				k += snprintf(who + k, k < sizeof(who) ? sizeof(who) - k : 0,
					      "%s%s %u %s", k ? ", " : "", top[j].comm, top[j].tid,
					      show_fmt_dur(top[j].ns, d, sizeof(d)));
			if (n > 3 && k < sizeof(who))
				k += snprintf(who + k, sizeof(who) - k, ", %zu more", n - 3);
			if (none && k < sizeof(who))
				snprintf(who + k, sizeof(who) - k, "%sno recorded task %s",
					 k ? ", " : "", show_fmt_dur(none, d, sizeof(d)));
		}
		fprintf(out, "%s\n[%" PRId64 ",%" PRId64 ",%d,%u,", first ? "" : ",",
			(int64_t)(a - v->t0), (int64_t)(b - v->t0), g->st, g->cpu);
		show_json_str(out, who);
		fputc(']', out);
		first = 0;
	}
	fputs("],\"wakes\":[", out);
	first = 1;
	for (size_t i = 0; i < w->nr_wakes; i++) {
		const struct why_wake *k = &w->wakes[i];

		if (k->time < v->t0 || k->time > v->t1)
			continue;
		fprintf(out, "%s[%" PRId64 ",%u,%u,", first ? "" : ",", (int64_t)(k->time - v->t0),
			k->waker, k->cpu);
		show_json_str(out, k->comm);
		fputc(']', out);
		first = 0;
	}
	fprintf(out, "],\"cut\":%s}", w->segs_cut ? "true" : "false");
	show_why_free(w);
	free(w);
}

int show__write_html(const struct show *s, const struct show_view *v, FILE *out, int nlast)
{
	char *sum = NULL, f[2048];
	size_t sumlen = 0;
	FILE *m = open_memstream(&sum, &sumlen);
	uint64_t t0 = v->t0;
	uint64_t *evcount = calloc(s->pd->nr_attrs + 1, sizeof(*evcount));
	int first = 1;

	if (!m || !evcount) {
		if (m)
			fclose(m);
		free(sum);
		free(evcount);
		return -ENOMEM;
	}
	show__print(s, m, nlast);
	fclose(m);
	for (size_t i = v->lo; i < v->hi; i++)
		evcount[s->recs[i].attr]++;

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>trigrec show: ",
	      out);
	html_text(out, jv_str(s->sc, "trigger.name", s->data_path),
		  strlen(jv_str(s->sc, "trigger.name", s->data_path)));
	fprintf(out,
		"</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>trigrec snapshot: ", page_css);
	html_text(out, s->data_path, strlen(s->data_path));
	fputs("</h1>\n<div id=\"legend\"></div>\n<div id=\"range\"></div>\n"
	      "<div id=\"wrap\"><svg id=\"tl\" xmlns=\"http://www.w3.org/2000/svg\"></svg></div>\n"
	      "<p>One lane per CPU: the bar shows which task ran (from sched_switch, where recorded; "
	      "hover for the task), each tick below it is one record (hover for its fields). "
	      "Under the CPUs, the lane <i>why</i> shows the triggering thread's state (the why section): "
	      "running, runnable (hover: who ran instead), blocked S, blocked D, other, unknown; "
	      "an arrow from a CPU is a wake-up of the thread issued there. "
	      "Wheel: zoom; drag: pan; double-click: the whole window.</p>\n"
	      "<details open><summary>what fired, the window, the busiest tasks and events "
	      "(trigrec show)</summary><pre id=\"summary\">",
	      out);
	html_text(out, sum, sumlen);
	free(sum);
	fputs("</pre></details>\n", out);
	if (show_scope_note(s)) {
		const char *note = show_scope_note(s);

		fputs("<p class=\"cut\" id=\"scope\">This snapshot was ", out);
		html_text(out, note, strlen(note));
		fputs(".</p>\n", out);
	}
	if (v->cut)
		fprintf(out,
			"<p class=\"cut\">This page holds the %zu records nearest the trigger, of %zu "
			"in the snapshot (a page of all would not open): <code>trigrec show "
			"--max-records 0</code> writes them all, <code>perf script</code> lists "
			"them.</p>\n",
			v->hi - v->lo, s->nr);
	fputs(""
	      "<div id=\"tip\"></div>\n<script id=\"data\" type=\"application/json\">\n{",
	      out);
	/* times relative to the window start: exact in a double (the absolute ones are not) */
	fprintf(out, "\"t0\":\"%" PRIu64 "\",\"win\":[0,%" PRIu64 "],\"cpus\":[", t0, v->t1 - t0);
	for (int i = 0; i < s->nr_cpus; i++)
		fprintf(out, "%s%d", i ? "," : "", s->cpus[i]);
	fputs("],\"events\":[", out);
	for (int i = 0; i < s->pd->nr_attrs; i++) {
		fputs(i ? "," : "", out);
		show_json_str(out, s->pd->attrs[i].name);
	}
	fputs("],\"evcount\":[", out);
	for (int i = 0; i < s->pd->nr_attrs; i++)
		fprintf(out, "%s%" PRIu64, i ? "," : "", evcount[i]);
	free(evcount);
	fputs("],\n\"recs\":[", out);
	for (size_t i = v->lo; i < v->hi; i++) {
		const struct show_rec *r = &s->recs[i];

		show_rec_fields(s, r, f, sizeof(f));
		fprintf(out, "%s\n[%" PRId64 ",%u,%d,%u,%u,", i > v->lo ? "," : "",
			(int64_t)(r->time - t0), r->cpu, r->attr, r->pid, r->tid);
		show_json_str(out, r->comm);
		fputc(',', out);
		show_json_str(out, f);
		fputc(']', out);
	}
	fputs("],\n\"runs\":[", out);
	for (size_t i = 0; i < s->nr_runs; i++) {
		const struct show_run *r = &s->runs[i];
		uint64_t a, b;

		if (!run_in_view(r, v, &a, &b))
			continue;
		fprintf(out, "%s\n[%u,%" PRId64 ",%" PRId64 ",%u,%u,", first ? "" : ",", r->cpu,
			(int64_t)(a - t0), (int64_t)(b - t0), r->pid, r->tid);
		first = 0;
		show_json_str(out, r->comm);
		fputc(']', out);
	}
	/* pid -> container (sidecar "tasks"), for the hover text. */
	fputs("],\n\"ctr\":{", out);
	{
		const struct jv *tk = jv_get(s->sc, "tasks");
		char ct[320];
		int fc = 1;

		for (int i = 0; tk && tk->type == JV_ARR && i < tk->n; i++) {
			uint32_t pid = (uint32_t)jv_u64(&tk->kids[i], "pid", 0);

			if (!show_container(s, pid, ct, sizeof(ct))[0])
				continue;
			fprintf(out, "%s\"%u\":", fc ? "" : ",", pid);
			show_json_str(out, ct);
			fc = 0;
		}
	}
	fputs("},\n\"spans\":[", out);
	for (int i = 0; i < s->nr_spans; i++) {
		fprintf(out, "%s{\"kind\":\"%s\",\"s\":%" PRId64 ",\"e\":%" PRId64 ",\"label\":",
			i ? "," : "", s->spans[i].kind, (int64_t)(s->spans[i].start - t0),
			(int64_t)(s->spans[i].end - t0));
		show_json_str(out, s->spans[i].label);
		fputc('}', out);
	}
	fputs("],\n\"why\":", out);
	why_lane_json(s, v, out);
	fputs(",\n\"trig\":", out);
	if (s->sc) {
		fprintf(out, "{\"t\":%" PRId64 ",\"cpu\":%u,\"tid\":%u,\"name\":",
			(int64_t)((s->trig_rec >= 0 ? s->recs[s->trig_rec].time : s->trig_time) -
				  t0),
			s->trig_cpu, s->trig_tid);
		show_json_str(out, jv_str(s->sc, "trigger.name", ""));
		fputc('}', out);
	} else {
		fputs("null", out);
	}
	fprintf(out, "}\n</script>\n<script>\n%s</script>\n</body>\n</html>\n", page_js);
	return ferror(out) ? -EIO : 0;
}

/* ---- Trace Event Format ---- */

/* The CPU tracks live in a process of their own, with ids no real task has. */
#define CPU_PID 0x40000000u

static void us(FILE *out, uint64_t ns)
{
	fprintf(out, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
}

static void meta(FILE *out, const char *what, uint32_t pid, uint32_t tid, const char *name,
		 int sort)
{
	fprintf(out,
		",\n{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%u,\"tid\":%u,\"args\":{\"name\":", what,
		pid, tid);
	show_json_str(out, name);
	fputs("}}", out);
	if (sort >= 0)
		fprintf(out,
			",\n{\"ph\":\"M\",\"name\":\"%s_sort_index\",\"pid\":%u,\"tid\":%u,"
			"\"args\":{\"sort_index\":%d}}",
			what[0] == 'p' ? "process" : "thread", pid, tid, sort);
}

/* The record's fields as args: numbers where the format says integer. */
static void args(FILE *out, const struct show *s, const struct show_rec *r)
{
	const struct pdr_attr *a = &s->pd->attrs[r->attr];
	char v[512];
	int n = 0;

	fprintf(out, "{\"cpu\":%u", r->cpu);
	for (int i = 0; a->fmt && show_raw(r) && i < a->fmt->nr_fields; i++) {
		const struct tp_field *fl = &a->fmt->fields[i];

		if (fl->is_common)
			continue;
		pdr_field_str(fl, show_raw(r), r->raw_size, v, sizeof(v));
		fputc(',', out);
		show_json_str(out, fl->name);
		fputc(':', out);
		if (fl->kind == TP_FIELD_INT && v[0])
			fputs(v, out);
		else
			show_json_str(out, v);
		n++;
	}
	if (!a->fmt)
		fprintf(out, ",\"ip\":\"0x%" PRIx64 "\"", pdr_sample_ip(s->pd, r->attr, r->hdr));
	fputc('}', out);
}

/* (a thread, one of its records), or (a thread's first record, its last): sorted by both */
struct tid_ix {
	uint64_t key, ix;
};

static int tid_ix_cmp(const void *a, const void *b)
{
	const struct tid_ix *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->ix < y->ix ? -1 : x->ix > y->ix;
}

/*
 * The why section's stretches of the triggering thread, a track per state
 * (tids just below the trigrec track's), cut to the view.
 */
static void why_tracks(const struct show *s, const struct show_view *v, FILE *out, uint32_t trk)
{
	struct show_why *w = s->sc ? malloc(sizeof(*w)) : NULL;
	int used[WHY_NR_ST] = { 0 };
	char name[96];

	if (!w)
		return;
	if (show_why(s, s->why_span_ns, w) || !w->done) {
		show_why_free(w);
		free(w);
		return;
	}
	for (size_t i = 0; i < w->nr_segs; i++) {
		const struct why_seg *g = &w->segs[i];
		uint64_t a = g->a > v->t0 ? g->a : v->t0, b = g->b < v->t1 ? g->b : v->t1;
		uint32_t tid = trk - 8 + (uint32_t)g->st;

		if (b <= a || g->st < 0 || g->st >= WHY_NR_ST)
			continue;
		if (!used[g->st]) {
			used[g->st] = 1;
			snprintf(name, sizeof(name), "why: %s %u %s", w->comm, w->tid,
				 show_why_state(g->st));
			meta(out, "thread_name", CPU_PID, tid, name, -1);
		}
		fprintf(out,
			",\n{\"ph\":\"X\",\"cat\":\"why\",\"pid\":%u,\"tid\":%u,\"ts\":", CPU_PID,
			tid);
		us(out, a);
		fputs(",\"dur\":", out);
		us(out, b - a);
		if (g->st == WHY_ST_RUNNING || g->st == WHY_ST_RUNNABLE)
			snprintf(name, sizeof(name), "%s on CPU %u", show_why_state(g->st), g->cpu);
		else
			snprintf(name, sizeof(name), "%s", show_why_state(g->st));
		fputs(",\"name\":", out);
		show_json_str(out, name);
		fprintf(out, ",\"args\":{\"tid\":%u}}", w->tid);
	}
	show_why_free(w);
	free(w);
}

int show__write_chrome(const struct show *s, const struct show_view *v, FILE *out)
{
	const uint32_t trk = CPU_PID + 0xffff; /* the trigrec track: trigger, spans */
	size_t nv = v->hi - v->lo, nseen = 0, ngroups = 0;
	struct tid_ix *tix = calloc(nv + 1, sizeof(*tix));
	struct tid_ix *firsts = calloc(nv + 1, sizeof(*firsts));
	char name[64];

	if (!tix || !firsts) {
		free(tix);
		free(firsts);
		return -ENOMEM;
	}
	fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"snapshot\":", out);
	show_json_str(out, s->data_path);
	fputs(",\"trigger\":", out);
	show_json_str(out, jv_str(s->sc, "trigger.text", ""));
	fputs("},\"traceEvents\":[\n", out);
	fprintf(out,
		"{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%u,\"tid\":%u,"
		"\"args\":{\"name\":\"CPUs\"}}",
		CPU_PID, trk);
	fprintf(out,
		",\n{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%u,\"tid\":%u,"
		"\"args\":{\"sort_index\":-1}}",
		CPU_PID, trk);
	meta(out, "thread_name", CPU_PID, trk, "trigrec: trigger", -1);
	for (int i = 0; i < s->nr_cpus; i++) {
		snprintf(name, sizeof(name), "CPU %d", s->cpus[i]);
		meta(out, "thread_name", CPU_PID, CPU_PID + s->cpus[i], name, s->cpus[i]);
	}
	/*
	 * One track per thread: names from the records (the latest), processes
	 * from pids, in the order threads first appear. Sorted (tid, index)
	 * pairs, so a view of many threads costs n log n, not threads x n.
	 */
	for (size_t i = v->lo; i < v->hi; i++)
		tix[nseen++] = (struct tid_ix){ s->recs[i].tid, i };
	qsort(tix, nseen, sizeof(*tix), tid_ix_cmp);
	for (size_t i = 0, j; i < nseen; i = j) {
		for (j = i; j < nseen && tix[j].key == tix[i].key; j++)
			;
		/* the group's first record (sorted by index within it), then its last */
		firsts[ngroups++] = (struct tid_ix){ tix[i].ix, tix[j - 1].ix };
	}
	qsort(firsts, ngroups, sizeof(*firsts), tid_ix_cmp);
	for (size_t g = 0; g < ngroups; g++) {
		const struct show_rec *r = &s->recs[firsts[g].key];
		const struct show_rec *l = &s->recs[firsts[g].ix];
		char tn[48];

		snprintf(tn, sizeof(tn), "%s %u", l->comm, r->tid);
		meta(out, "thread_name", r->pid, r->tid, tn, -1);
		if (r->pid == r->tid) {
			char ct[320], pn[360];

			/* The container beside the name (sidecar "tasks"), as trigrec show prints it. */
			if (show_container(s, r->pid, ct, sizeof(ct))[0])
				snprintf(pn, sizeof(pn), "%s [%s]", l->comm, ct);
			else
				snprintf(pn, sizeof(pn), "%s", l->comm);
			meta(out, "process_name", r->pid, r->tid, pn, -1);
		}
	}
	for (size_t i = 0; i < s->nr_runs; i++) {
		const struct show_run *r = &s->runs[i];
		uint64_t a, b;

		if (!run_in_view(r, v, &a, &b))
			continue;
		fprintf(out,
			",\n{\"ph\":\"X\",\"cat\":\"sched\",\"pid\":%u,\"tid\":%u,\"ts\":", CPU_PID,
			CPU_PID + r->cpu);
		us(out, a);
		fputs(",\"dur\":", out);
		us(out, b - a);
		snprintf(name, sizeof(name), "%s %u", r->comm, r->tid);
		fputs(",\"name\":", out);
		show_json_str(out, name);
		fprintf(out, ",\"args\":{\"pid\":%u,\"tid\":%u}}", r->pid, r->tid);
	}
	for (size_t i = v->lo; i < v->hi; i++) {
		const struct show_rec *r = &s->recs[i];

		fprintf(out,
			",\n{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"record\",\"pid\":%u,\"tid\":%u,\"ts\":",
			r->pid, r->tid);
		us(out, r->time);
		fputs(",\"name\":", out);
		show_json_str(out, s->pd->attrs[r->attr].name);
		fputs(",\"args\":", out);
		args(out, s, r);
		fputc('}', out);
	}
	if (s->sc) {
		fprintf(out,
			",\n{\"ph\":\"i\",\"s\":\"g\",\"cat\":\"trigger\",\"pid\":%u,\"tid\":%u,\"ts\":",
			CPU_PID, trk);
		us(out, s->trig_rec >= 0 ? s->recs[s->trig_rec].time : s->trig_time);
		snprintf(name, sizeof(name), "trigger %s", jv_str(s->sc, "trigger.name", ""));
		fputs(",\"name\":", out);
		show_json_str(out, name);
		fprintf(out, ",\"args\":{\"cpu\":%u,\"pid\":%u,\"tid\":%u,\"text\":", s->trig_cpu,
			s->trig_pid, s->trig_tid);
		show_json_str(out, jv_str(s->sc, "trigger.text", ""));
		fputs("}}", out);
	}
	for (int i = 0; i < s->nr_spans; i++) {
		fprintf(out, ",\n{\"ph\":\"X\",\"cat\":\"%s\",\"pid\":%u,\"tid\":%u,\"ts\":",
			s->spans[i].kind, CPU_PID, trk);
		us(out, s->spans[i].start);
		fputs(",\"dur\":", out);
		us(out, s->spans[i].end - s->spans[i].start);
		fputs(",\"name\":", out);
		show_json_str(out, s->spans[i].label);
		fputs("}", out);
	}
	why_tracks(s, v, out, trk);
	fputs("\n]}\n", out);
	free(tix);
	free(firsts);
	return ferror(out) ? -EIO : 0;
}
