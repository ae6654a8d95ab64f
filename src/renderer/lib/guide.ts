/**
 * The user guide (docs/user-guide.md, bundled into the renderer so it works offline and in the desktop app) as
 * blocks: headings with ids, paragraphs and lists. Only what that file uses: #/## headings, "- " lists with
 * indented continuation lines, paragraphs; inline `code` and **bold** are split out by `inline`.
 */
export type GuideBlock = { kind: 'h1' | 'h2'; text: string; id: string } | { kind: 'p'; text: string } | { kind: 'ul'; items: string[] };

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/^\d+\.\s*/, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

export function parseGuide(md: string): GuideBlock[] {
  const blocks: GuideBlock[] = [];
  let para: string[] = [];
  let list: string[] | null = null;
  const flush = () => {
    if (para.length) blocks.push({ kind: 'p', text: para.join(' ') });
    para = [];
    if (list) blocks.push({ kind: 'ul', items: list });
    list = null;
  };
  for (const raw of md.split('\n')) {
    const line = raw.trimEnd();
    const h = /^(#{1,2})\s+(.*)$/.exec(line);
    if (h) {
      flush();
      blocks.push({ kind: h[1]!.length === 1 ? 'h1' : 'h2', text: h[2]!, id: slug(h[2]!) });
    } else if (/^- /.test(line)) {
      if (para.length) flush();
      (list ??= []).push(line.slice(2));
    } else if (list && /^\s+\S/.test(line)) {
      list[list.length - 1] += ` ${line.trim()}`;
    } else if (line === '') {
      flush();
    } else {
      if (list) flush();
      para.push(line);
    }
  }
  flush();
  return blocks;
}

/** Text split into plain, `code` and **bold** runs. */
export function inline(text: string): { kind: 'text' | 'code' | 'bold'; text: string }[] {
  const out: { kind: 'text' | 'code' | 'bold'; text: string }[] = [];
  const re = /`([^`]+)`|\*\*([^*]+)\*\*/g;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m.index > last) out.push({ kind: 'text', text: text.slice(last, m.index) });
    out.push(m[1] !== undefined ? { kind: 'code', text: m[1] } : { kind: 'bold', text: m[2]! });
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push({ kind: 'text', text: text.slice(last) });
  return out;
}
