// What a run made: screenshots shown as images, every artifact with a download (binaries by their signed
// URL, JSON kinds as a file made in the page).
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import type { Artifact, ArtifactEntry, ArtifactFile, Run } from '../contract/schemas.js';
import { api } from './api.js';
import { bytes, clean } from './text.js';
import { ErrorNote } from './ui.js';

/** A signed URL of this same service, and nothing else, is followed. */
function sameOrigin(url: string): string | null {
  try {
    const u = new URL(url, location.href);
    return u.origin === location.origin && u.pathname.startsWith('/files/') ? u.href : null;
  } catch {
    return null;
  }
}

export function Artifacts({ run, version }: { run: Run; version: string }) {
  const { manifest, files, json, error } = useArtifacts(run, version);
  const shots = files.screenshots ?? [];
  return html`<section aria-labelledby="artifacts-h">
    <h2 id="artifacts-h">Artifacts</h2>
    <${ErrorNote} error=${error} />
    ${
      shots.length
        ? html`<ul class="shots" aria-label="Screenshots">
          ${shots.map((f) => {
            const src = sameOrigin(f.url);
            return src
              ? html`<li><figure><img src=${src} alt=${`Screenshot ${clean(f.name)}`} loading="lazy" /><figcaption>${clean(f.name)}</figcaption></figure></li>`
              : null;
          })}
        </ul>`
        : null
    }
    ${manifest === null ? html`<p>Loading…</p>` : null}
    ${manifest && manifest.length ? html`<${ArtifactTable} manifest=${manifest} files=${files} json=${json} />` : null}
  </section>`;
}

function ArtifactTable({
  manifest,
  files,
  json,
}: {
  manifest: ArtifactEntry[];
  files: Record<string, ArtifactFile[]>;
  json: Record<string, string>;
}) {
  return html`<table class="artifacts">
          <thead><tr><th scope="col">Kind</th><th scope="col">State</th><th scope="col">Size</th><th scope="col">Download</th></tr></thead>
          <tbody>
            ${manifest.map(
              (e) => html`<tr key=${e.kind}>
                <th scope="row">${clean(e.kind)}</th>
                <td>${e.status === 'ready' ? '✓ ready' : `… ${clean(e.status)}`}</td>
                <td>${bytes(e.size)}</td>
                <td>${
                  json[e.kind]
                    ? html`<a href=${json[e.kind]} download=${`${clean(e.kind)}.json`}>${clean(e.kind)}.json</a>`
                    : (files[e.kind] ?? []).map((f) => {
                        const href = sameOrigin(f.url);
                        return href
                          ? html`<a class="file" href=${href} download=${clean(f.name)}>${clean(f.name)}</a> `
                          : null;
                      })
                }</td>
              </tr>`,
            )}
          </tbody>
        </table>`;
}

/** The run's manifest, and for each ready artifact its files (binaries) or its content as a file made here
 * (JSON kinds); read again when `version` changes. */
function useArtifacts(run: Run, version: string) {
  const [manifest, setManifest] = useState<ArtifactEntry[] | null>(null);
  const [files, setFiles] = useState<Record<string, ArtifactFile[]>>({});
  const [json, setJson] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>(null);
  const base = `/v1/runs/${encodeURIComponent(run.id)}/artifacts`;

  useEffect(() => {
    let stopped = false;
    const readEach = async (entries: ArtifactEntry[]) => {
      for (const e of entries) {
        if (e.status !== 'ready') continue;
        const a = await api<Artifact>('GET', `${base}/${encodeURIComponent(e.kind)}`).catch(() => null);
        if (stopped || !a) continue;
        const { files, content } = a as { files?: ArtifactFile[]; content?: unknown };
        if (files) setFiles((f) => ({ ...f, [e.kind]: files }));
        else if (content !== undefined) setJson((j) => ({ ...j, [e.kind]: jsonFile(content) }));
      }
    };
    api<{ data: ArtifactEntry[] }>('GET', base)
      .then(async (m) => {
        if (stopped) return;
        setManifest(m.data);
        setError(null);
        await readEach(m.data);
      })
      .catch((e) => !stopped && setError(e));
    return () => {
      stopped = true;
    };
  }, [run.id, version]);
  return { manifest, files, json, error };
}

/** A JSON artifact's content as a file the page can offer for download. */
function jsonFile(content: unknown): string {
  return URL.createObjectURL(new Blob([JSON.stringify(content, null, 2)], { type: 'application/json' }));
}
