// The Export menu: the scenario as a file `highwater run` replays, the trace
// as text, the current moment and the space-time diagram as SVG or PNG (for
// a slide). export.js makes the files from what the core says.

import { t } from '../words/i18n.js';
import { scenarioFile, traceFile, momentSvg, diagramSvg, svgToPng, fileName, download } from '../draw/export.js';

export function wireExport(pg) {
  const menu = pg.$('export-menu');
  const title = () => pg.scenarioTitle().name || t('page.your_run');
  const files = {
    scenario: () => [fileName(pg.name, 'json'), new Blob([scenarioFile(pg.sim)], { type: 'application/json' })],
    trace: () => [fileName(pg.name, 'trace.txt'), new Blob([traceFile(pg.sim)], { type: 'text/plain' })],
    moment_svg: () => [fileName(pg.name, `step-${pg.position}.svg`), new Blob([momentSvg(pg.sim.state())], { type: 'image/svg+xml' })],
    moment_png: async () => [fileName(pg.name, `step-${pg.position}.png`), await svgToPng(momentSvg(pg.sim.state()))],
    diagram_svg: () => [fileName(pg.name, 'diagram.svg'), new Blob([diagramSvg(pg.diagram.data(), { title: title() })], { type: 'image/svg+xml' })],
    diagram_png: async () => [fileName(pg.name, 'diagram.png'), await svgToPng(diagramSvg(pg.diagram.data(), { title: title() }))],
  };
  menu.addEventListener('click', async (e) => {
    const b = e.target.closest('button[data-export]');
    if (!b || !files[b.dataset.export]) return;
    menu.open = false;
    try {
      const [name, blob] = await files[b.dataset.export]();
      download(name, blob);
    } catch (err) {
      pg.enter();
      pg.notify('error', t('notice.failed', { what: b.textContent, message: err && err.message ? err.message : String(err) }));
    }
  });
}
