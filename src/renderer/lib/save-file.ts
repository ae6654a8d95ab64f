// Hands an exported file (base64 bytes from the engine) to the browser as a download; the desktop app shows its save
// dialog for it.
export function saveFile(filename: string, mime: string, base64: string): void {
  const bin = atob(base64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  const url = URL.createObjectURL(new Blob([bytes], { type: mime }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** What the page says once an exported file is handed over: its name and size. */
export function exportedMessage(f: { filename: string; bytes: number }): string {
  return `Exported ${f.filename} (${Math.max(1, Math.round(f.bytes / 1024))} KB)`;
}
