// The Export menu: the scenario as a file `highwater run` replays, the trace
// as text, the current moment and the space-time diagram as SVG or PNG (for
// a slide). export.js makes the files from what the core says; it is
// imported when a file is first asked for, as is the diagram's panel.

import { t } from '../words/i18n.js';

export function wireExport(pg) {
  const menu = pg.$('export-menu');
  const title = () => pg.scenarioTitle().name || t('page.your_run');
  // The moment as the board draws it: no record epochs before 0.11.
  // A topic of several partitions: the one on the board, its replicas only.
  const moment = (momentSvg) => {
    const several = pg.partitions > 1;
    const state = pg.sim.state(undefined, undefined, several ? pg.partition : undefined);
    return momentSvg(state, undefined, { recordEpochs: pg.recordsCarryEpochs(state.protocol), partition: several ? pg.partition : null });
  };
  // The diagram's data, from the full core (where the diagram is: core.js).
  const diagramData = async () => {
    await pg.useViews();
    return (await pg.loadDiagram()).data();
  };
  const files = {
    scenario: ({ scenarioFile, fileName }) => [fileName(pg.name, 'json'), new Blob([scenarioFile(pg.sim)], { type: 'application/json' })],
    trace: ({ traceFile, fileName }) => [fileName(pg.name, 'trace.txt'), new Blob([traceFile(pg.sim)], { type: 'text/plain' })],
    moment_svg: ({ momentSvg, fileName }) => [fileName(pg.name, `step-${pg.position}.svg`), new Blob([moment(momentSvg)], { type: 'image/svg+xml' })],
    moment_png: async ({ momentSvg, svgToPng, fileName }) => [fileName(pg.name, `step-${pg.position}.png`), await svgToPng(moment(momentSvg))],
    diagram_svg: async ({ diagramSvg, fileName }) => [fileName(pg.name, 'diagram.svg'), new Blob([diagramSvg(await diagramData(), { title: title() })], { type: 'image/svg+xml' })],
    diagram_png: async ({ diagramSvg, svgToPng, fileName }) => [fileName(pg.name, 'diagram.png'), await svgToPng(diagramSvg(await diagramData(), { title: title() }))],
  };
  menu.addEventListener('click', async (e) => {
    const b = e.target.closest('button[data-export]');
    if (!b || !files[b.dataset.export]) return;
    menu.open = false;
    try {
      const exporters = await import('../draw/export.js');
      const [name, blob] = await files[b.dataset.export](exporters);
      exporters.download(name, blob);
    } catch (err) {
      pg.enter();
      pg.notify('error', t('notice.failed', { what: b.textContent, message: err && err.message ? err.message : String(err) }));
    }
  });
}
