// The playground's markup: the same for the full page, the compact embed and
// the bare figure (the `controls` attribute hides what a size does not show).
// No landmark or top-level heading: the host page owns those (the full page
// gives the element's parts their roles: highwater-playground.js). Static
// text written here; every word is replaced from the locale tables
// (data-i18n) before it is shown. It is built once into a fragment by
// `markupFragment` below, element by element (createElement, setAttribute):
// no HTML parser is involved, so a page under Trusted Types
// (`require-trusted-types-for 'script'`) builds it as any other.
//
// Source order is Tab order: the page's top row and its Tools row are one
// Tab stop each (toolbar.js), and the producer panel comes before the
// replicas (drawn at the top of the side column: style.css, `.layout`), so
// Produce is among the first Tab stops of free play.

export const MARKUP = `
<div class="hw undrawn" id="root" part="root" dir="ltr">
  <div class="topbar" id="topbar">
    <div class="brand">
      <svg class="logo" viewBox="0 0 32 32" width="30" height="30" aria-hidden="true"><rect x="3" y="6" width="6" height="20" rx="1.5"/><rect x="13" y="6" width="6" height="20" rx="1.5"/><rect x="23" y="6" width="6" height="20" rx="1.5" class="logo-tail"/><path d="M1 17 H31" class="logo-line"/></svg>
      <div>
        <p class="brand-name" id="brand-name">Highwater</p>
        <p class="tagline" data-i18n="page.tagline">Kafka partition replication, step by step</p>
        <span id="embed-name" class="embed-only embed-name"></span>
      </div>
    </div>
    <div class="top-actions full-only" id="top-actions">
      <div class="page-tools" id="page-tools" data-toolbar role="toolbar" aria-label="Page" data-i18n-attr="aria-label:nav.page_tools">
      <button type="button" id="btn-tours" class="primary" data-i18n="nav.tours">Tours</button>
      <button type="button" id="btn-gallery" data-i18n="nav.scenarios">Scenarios</button>
      <button type="button" id="btn-tools" class="group-toggle" data-group-toggle="tools" aria-expanded="false" aria-controls="tools" data-i18n="nav.tools">Tools</button>
      <button type="button" id="btn-glossary" data-i18n="nav.glossary">Glossary</button>
      <button type="button" id="btn-help" class="round" popovertarget="help" aria-label="Help and keyboard shortcuts" data-i18n-attr="aria-label:nav.help">?</button>
      <label class="lang-pick"><span class="visually-hidden" data-i18n="nav.language">Language</span><select id="lang" aria-label="Language" data-i18n-attr="aria-label:nav.language"></select></label>
      </div>
      <div id="tools" class="tools" data-group="tools" data-toolbar role="toolbar" aria-label="Tools" data-i18n-attr="aria-label:nav.tools">
        <button type="button" id="btn-explore" data-i18n="nav.explore">Find a way to lose data</button>
        <button type="button" id="btn-fork" data-i18n="nav.fork">What if…</button>
        <button type="button" id="btn-whatif" data-i18n="nav.whatif">Every outcome</button>
        <button type="button" id="btn-write" data-i18n="nav.write">Write a lesson</button>
        <button type="button" id="btn-settings" data-i18n="nav.settings">Settings</button>
        <button type="button" id="btn-copy-link" data-i18n="nav.copy_link">Copy link</button>
        <button type="button" id="btn-embed" data-i18n="nav.embed">Embed</button>
        <details id="export-menu" class="export-menu">
          <summary class="export-summary" data-i18n="export.title">Export</summary>
          <div class="export-items" data-toolbar role="toolbar" aria-orientation="vertical" aria-label="Export" data-i18n-attr="aria-label:export.title">
            <button type="button" data-export="scenario" data-i18n="export.scenario">Scenario (JSON)</button>
            <button type="button" data-export="trace" data-i18n="export.trace">Trace (text)</button>
            <button type="button" data-export="moment_svg" data-i18n="export.moment_svg">This moment (SVG)</button>
            <button type="button" data-export="moment_png" data-i18n="export.moment_png">This moment (PNG)</button>
            <button type="button" data-export="diagram_svg" data-i18n="export.diagram_svg">Diagram (SVG)</button>
            <button type="button" data-export="diagram_png" data-i18n="export.diagram_png">Diagram (PNG)</button>
          </div>
        </details>
      </div>
    </div>
    <a id="open-full" class="embed-only open-full" target="_blank" rel="noopener" href="./" data-i18n="page.open_full">Open in Highwater ↗</a>
  </div>

  <div id="app" class="app" aria-busy="true">
    <section class="scenario-head" aria-label="Scenario" data-i18n-attr="aria-label:page.scenario_label">
      <h2 id="scenario-name" data-i18n="page.loading">Loading…</h2>
      <p id="scenario-description" class="muted"></p>
      <p id="onboard" class="onboard" hidden></p>
    </section>

    <section id="tour" class="tour-panel" aria-label="Tour" data-i18n-attr="aria-label:tour.tag" hidden></section>
    <section id="writer" class="writer-panel" aria-labelledby="writer-title" hidden></section>

    <section class="player" aria-label="Timeline" data-i18n-attr="aria-label:player.label">
      <div class="player-buttons">
        <button type="button" id="btn-start" class="icon" aria-label="Go to the start (step 0)" title="Go to the start (Home)" data-i18n-attr="aria-label:player.start_label; title:player.start_title"><svg viewBox="0 0 16 16" aria-hidden="true"><rect x="2" y="3" width="2" height="10"/><path d="M14 3v10L5 8z"/></svg></button>
        <button type="button" id="btn-back" class="icon" aria-label="Step back (Left arrow)" title="Step back (←)" data-i18n-attr="aria-label:player.back_label; title:player.back_title"><svg viewBox="0 0 16 16" aria-hidden="true"><path d="M11 3v10L3 8z"/><rect x="12" y="3" width="2" height="10"/></svg></button>
        <button type="button" id="btn-play" class="icon play" aria-label="Play (Space)" title="Play (Space)"><svg class="i-play" viewBox="0 0 16 16" aria-hidden="true"><path d="M4 2.5v11L13.5 8z"/></svg><svg class="i-pause" viewBox="0 0 16 16" aria-hidden="true"><rect x="3.5" y="3" width="3" height="10"/><rect x="9.5" y="3" width="3" height="10"/></svg></button>
        <button type="button" id="btn-forward" class="icon" aria-label="Step forward (Right arrow)" title="Step forward (→)" data-i18n-attr="aria-label:player.forward_label; title:player.forward_title"><svg viewBox="0 0 16 16" aria-hidden="true"><rect x="2" y="3" width="2" height="10"/><path d="M5 3v10l8-5z"/></svg></button>
        <label class="speed">
          <span class="visually-hidden" data-i18n="player.speed">Speed</span>
          <select id="speed" aria-label="Playback speed" data-i18n-attr="aria-label:player.speed_label">
            <option value="0.25">0.25×</option>
            <option value="0.5">0.5×</option>
            <option value="1" selected>1×</option>
            <option value="2">2×</option>
            <option value="4">4×</option>
            <option value="10">10×</option>
          </select>
        </label>
      </div>
      <input type="range" id="timeline" min="0" max="0" value="0" step="1" aria-label="Timeline: step to show" data-i18n-attr="aria-label:player.timeline_label">
      <div class="player-tail">
        <span id="position" class="position" aria-live="off">0 / 0</span>
        <button type="button" id="btn-reset" class="full-only" aria-label="Reset: start an empty run with the same settings" data-i18n="player.reset" data-i18n-attr="aria-label:player.reset_label">Reset</button>
      </div>
    </section>
    <div id="notices" class="notices" aria-live="polite"></div>
    <div id="caption" class="caption" aria-live="polite"></div>

    <div id="banner"></div>

    <div id="compare-bar" class="compare-bar" hidden>
      <button type="button" id="btn-fork-close" data-i18n="fork.close">Back to the run</button>
      <span class="muted small" data-i18n="fork.bar_help">The timeline moves both runs; Copy link keeps the comparison.</span>
    </div>
    <section id="compare" class="compare-host" aria-label="Comparison" data-i18n-attr="aria-label:compare.label"></section>

    <div class="layout">
      <form id="produce-form" class="panel produce-form full-only" aria-label="Produce a record" data-i18n-attr="aria-label:producer.form_label">
          <label class="grow"><span data-i18n="producer.value">Value</span> <input id="produce-value" type="text" autocomplete="off" maxlength="1024" aria-label="Value of the record to produce" data-i18n-attr="aria-label:producer.value_label"></label>
          <label>acks
            <select id="produce-acks" aria-label="acks">
              <option value="all">all</option>
              <option value="1">1</option>
              <option value="0">0</option>
            </select>
          </label>
          <label class="cluster-only" hidden><span data-i18n="producer.partition">partition</span>
            <select id="produce-partition" aria-label="Partition to produce to" data-i18n-attr="aria-label:producer.partition_label"></select>
          </label>
          <label class="cluster-only" hidden><span data-i18n="producer.key">key</span> <input id="produce-key" type="text" autocomplete="off" maxlength="1024" class="short" aria-label="Key of the record: its partition is Kafka's hash of it" data-i18n-attr="aria-label:producer.key_label"></label>
          <label><span data-i18n="producer.to">to</span>
            <select id="produce-to" aria-label="Broker to send the produce request to" data-i18n-attr="aria-label:producer.to_label"><option value="">leader</option></select>
          </label>
          <button type="submit" id="btn-produce" class="primary" data-i18n="producer.produce">Produce</button>
      </form>
      <section class="panel producer full-only" aria-labelledby="producer-title">
        <div class="panel-head"><h3 id="producer-title" data-i18n="panel.producer">Producer</h3></div>
        <div id="producer" class="producer-list"></div>
      </section>

      <div class="col-main">
        <section class="panel replicas" aria-labelledby="replicas-title">
          <div class="panel-head">
            <h3 id="replicas-title" data-i18n="panel.replicas">Replicas</h3>
            <div class="toolbar full-only" role="group" aria-label="Cluster actions" data-i18n-attr="aria-label:toolbar.label">
              <span class="group" role="group" aria-label="Advance time" data-i18n-attr="aria-label:toolbar.time_label">
                <button type="button" data-advance="1000" aria-label="+1 s: advance the clock 1 second" data-i18n="toolbar.one_second" data-i18n-attr="aria-label:toolbar.one_second_label">+1 s</button>
                <button type="button" id="btn-clock" aria-pressed="false" data-i18n-attr="title:toolbar.clock_title">Run the clock</button>
              </span>
              <span id="clock-more" class="group" data-group="tools">
                <button type="button" id="btn-session" data-advance="session">+session</button>
                <button type="button" id="btn-lag" data-advance="lag">+lag time</button>
                <select id="elect-target" aria-label="Whom to elect" data-i18n-attr="aria-label:toolbar.elect_target"><option value="">controller's choice</option></select>
                <button type="button" id="btn-elect" aria-label="Elect a leader" data-i18n="toolbar.elect" data-i18n-attr="aria-label:toolbar.elect_label">Elect</button>
                <button type="button" id="btn-elect-preferred" aria-label="Preferred leader election: the partition's first replica leads again if it can" data-i18n="toolbar.elect_preferred" data-i18n-attr="aria-label:toolbar.elect_preferred_label">Preferred</button>
              </span>
            </div>
          </div>
          <div id="cluster-map" class="cluster-map" hidden></div>
          <div id="cluster" class="cluster-host"></div>
          <div id="log-window" class="log-window" hidden>
            <button type="button" id="win-prev" class="mini" aria-label="Show earlier offsets" data-i18n-attr="aria-label:logwindow.prev">◀</button>
            <input type="range" id="win-start" min="0" max="0" value="0" aria-label="First offset shown in the logs" data-i18n-attr="aria-label:logwindow.start">
            <button type="button" id="win-next" class="mini" aria-label="Show later offsets" data-i18n-attr="aria-label:logwindow.next">▶</button>
            <span id="win-label" class="muted small"></span>
            <button type="button" id="win-end" class="mini" aria-label="Follow end: keep the end of the logs in view" data-i18n="logwindow.follow" data-i18n-attr="aria-label:logwindow.follow_label">Follow end</button>
          </div>
          <div class="legend-row">
            <div id="legend" class="legend" aria-label="Legend" data-i18n-attr="aria-label:legend.label"></div>
            <label class="zoom full-only" data-group="tools"><span data-i18n="zoom.label">Records</span>
              <select id="zoom" aria-label="Size of the record cells" data-i18n-attr="aria-label:zoom.select_label">
                <option value="normal" data-i18n="zoom.large">large</option>
                <option value="compact" data-i18n="zoom.compact">compact</option>
                <option value="dense" data-i18n="zoom.dense">dense</option>
              </select>
            </label>
          </div>
        </section>

        <section class="panel network full-only" aria-labelledby="network-title" data-group="network">
          <div class="panel-head"><h3 id="network-title"><button type="button" class="panel-toggle" data-group-toggle="network" aria-expanded="false" data-i18n="panel.network">Network</button></h3></div>
          <div class="network-body">
            <div id="network"></div>
            <form id="link-form" class="link-form" aria-label="Cut or heal links" data-i18n-attr="aria-label:network.form_label">
              <p class="link-help" data-i18n="network.help">Cut or heal the link between two brokers; isolate or reconnect a broker from its menu.</p>
              <label><span data-i18n="network.from">From</span> <select id="link-a" aria-label="First broker of the link" data-i18n-attr="aria-label:network.from_label"></select></label>
              <label><span data-i18n="network.to">to</span> <select id="link-b" aria-label="Second broker of the link" data-i18n-attr="aria-label:network.to_label"></select></label>
              <div class="button-row">
                <button type="button" data-link="cut" data-i18n="network.cut" data-i18n-attr="aria-label:network.cut_label">Cut one way</button>
                <button type="button" data-link="partition" data-i18n="network.partition" data-i18n-attr="aria-label:network.partition_label">Partition</button>
                <button type="button" data-link="heal" data-i18n="network.heal_button" data-i18n-attr="aria-label:network.heal_button_label">Heal</button>
                <button type="button" data-link="heal-all" data-i18n="network.heal_all" data-i18n-attr="aria-label:network.heal_all_label">Heal all</button>
              </div>
            </form>
          </div>
        </section>
      </div>

      <div class="col-side">
        <section class="panel consumer full-only" aria-labelledby="consumer-title">
          <div class="panel-head">
            <h3 id="consumer-title" data-i18n="panel.consumer">Consumer</h3>
            <button type="button" id="btn-consume" data-i18n="consumer.consume" data-i18n-attr="aria-label:consumer.consume_label">Consume</button>
          </div>
          <div id="consumer"></div>
        </section>

        <section class="panel operator full-only" aria-labelledby="operator-title" data-group="operator">
          <div class="panel-head"><h3 id="operator-title"><button type="button" class="panel-toggle" data-group-toggle="operator" aria-expanded="false" data-i18n="operator.title">Operator's view</button></h3></div>
          <div id="operator" class="operator-view"></div>
        </section>

        <section class="panel events" aria-labelledby="events-title" data-group="events">
          <div class="panel-head">
            <h3 id="events-title"><button type="button" class="panel-toggle" data-group-toggle="events" aria-expanded="false" data-i18n="panel.events">Event log</button></h3>
            <button type="button" id="btn-trace" class="full-only" data-i18n="eventlog.trace" data-i18n-attr="aria-label:eventlog.trace_label">Trace as text</button>
          </div>
          <div id="event-log" class="event-log" tabindex="0" aria-label="Event log (trace lines up to this step; click a line to go to its step)" data-i18n-attr="aria-label:eventlog.label"></div>
        </section>
      </div>
    </div>

    <section class="panel diagram-panel full-only" aria-labelledby="diagram-title" data-group="diagram">
      <div class="panel-head">
        <h3 id="diagram-title"><button type="button" class="panel-toggle" data-group-toggle="diagram" aria-expanded="false" data-i18n="diagram.title">Space-time diagram of the run</button></h3>
        <span class="muted small" data-i18n="diagram.panel_help">Brokers are vertical lines, time runs down; click a step, an arrow or a mark to go there.</span>
        <span id="diagram-partition" class="muted small" hidden></span>
      </div>
      <div id="diagram" class="diagram-scroll diagram-box" tabindex="0" aria-label="Space-time diagram: the arrow keys move the timeline" data-i18n-attr="aria-label:diagram.box_label"></div>
    </section>
  </div>

  <div class="footer full-only" id="footer">
    <p class="muted small" data-i18n="page.footer">Highwater models one partition: logs, fetch, ISR, high watermark, leader epochs and the controller, under the rules and defaults of eight Kafka versions, from 0.10 to 4.1. Everything runs in this page.</p>
  </div>

  <dialog id="dlg-tours" class="dialog wide" aria-labelledby="tours-title">
    <div class="dialog-head"><h2 id="tours-title" data-i18n="tour.list_title">Tours</h2><button type="button" class="close" data-close aria-label="Close" data-i18n-attr="aria-label:common.close">✕</button></div>
    <p class="muted" data-i18n="tour.list_intro">Narrated lessons: each tour plays a run step by step and says what happened and which rule made it so. Some steps are yours to take.</p>
    <div id="tour-list" class="gallery"></div>
    <section class="tour-own" aria-labelledby="tour-own-title">
      <h3 id="tour-own-title" data-i18n="tour.own_title">Your own tour</h3>
      <p class="muted" data-i18n="tour.own_intro">A tour file holds a run, its stops and their words (docs/tours.md). Open one to take it here: the model checks every fact it states.</p>
      <label class="button file-pick"><input type="file" id="tour-file" accept=".json,application/json"><span data-i18n="tour.own_open">Open a tour file…</span></label>
    </section>
  </dialog>

  <dialog id="dlg-gallery" class="dialog wide" aria-labelledby="gallery-title">
    <div class="dialog-head"><h2 id="gallery-title" data-i18n="gallery_ui.title">Scenarios</h2><button type="button" class="close" data-close aria-label="Close" data-i18n-attr="aria-label:common.close">✕</button></div>
    <p class="muted" data-i18n="gallery_ui.intro">Worked examples and known failures. One click loads a scenario into the timeline; step through it or change it.</p>
    <div id="gallery" class="gallery"></div>
  </dialog>

  <dialog id="dlg-glossary" class="dialog wide" aria-labelledby="glossary-title">
    <div class="dialog-head"><h2 id="glossary-title" data-i18n="glossary_ui.title">Glossary</h2><button type="button" class="close" data-close aria-label="Close" data-i18n-attr="aria-label:common.close">✕</button></div>
    <dl id="glossary" class="glossary" data-i18n-bundle="glossary">
      <div class="glossary-item" id="term-offset"><dt data-i18n="glossary.offset.term"></dt><dd data-i18n="glossary.offset.text"></dd></div>
      <div class="glossary-item" id="term-leo"><dt data-i18n="glossary.leo.term"></dt><dd data-i18n="glossary.leo.text"></dd></div>
      <div class="glossary-item" id="term-hw"><dt data-i18n="glossary.hw.term"></dt><dd data-i18n="glossary.hw.text"></dd></div>
      <div class="glossary-item" id="term-committed"><dt data-i18n="glossary.committed.term"></dt><dd data-i18n="glossary.committed.text"></dd></div>
      <div class="glossary-item" id="term-ckpt"><dt data-i18n="glossary.ckpt.term"></dt><dd data-i18n="glossary.ckpt.text"></dd></div>
      <div class="glossary-item" id="term-leo_unknown"><dt data-i18n="glossary.leo_unknown.term"></dt><dd data-i18n="glossary.leo_unknown.text"></dd></div>
      <div class="glossary-item" id="term-remote"><dt data-i18n="glossary.remote.term"></dt><dd data-i18n="glossary.remote.text"></dd></div>
      <div class="glossary-item" id="term-epoch"><dt data-i18n="glossary.epoch.term"></dt><dd data-i18n="glossary.epoch.text"></dd></div>
      <div class="glossary-item" id="term-leader_epoch"><dt data-i18n="glossary.leader_epoch.term"></dt><dd data-i18n="glossary.leader_epoch.text"></dd></div>
      <div class="glossary-item" id="term-epoch_cache"><dt data-i18n="glossary.epoch_cache.term"></dt><dd data-i18n="glossary.epoch_cache.text"></dd></div>
      <div class="glossary-item" id="term-isr"><dt data-i18n="glossary.isr.term"></dt><dd data-i18n="glossary.isr.text"></dd></div>
      <div class="glossary-item" id="term-osr"><dt data-i18n="glossary.osr.term"></dt><dd data-i18n="glossary.osr.text"></dd></div>
      <div class="glossary-item" id="term-ar"><dt data-i18n="glossary.ar.term"></dt><dd data-i18n="glossary.ar.text"></dd></div>
      <div class="glossary-item" id="term-elr"><dt data-i18n="glossary.elr.term"></dt><dd data-i18n="glossary.elr.text"></dd></div>
      <div class="glossary-item" id="term-min_isr"><dt data-i18n="glossary.min_isr.term"></dt><dd data-i18n="glossary.min_isr.text"></dd></div>
      <div class="glossary-item" id="term-acks"><dt data-i18n="glossary.acks.term"></dt><dd data-i18n="glossary.acks.text"></dd></div>
      <div class="glossary-item" id="term-fetch"><dt data-i18n="glossary.fetch.term"></dt><dd data-i18n="glossary.fetch.text"></dd></div>
      <div class="glossary-item" id="term-truncation"><dt data-i18n="glossary.truncation.term"></dt><dd data-i18n="glossary.truncation.text"></dd></div>
      <div class="glossary-item" id="term-fenced"><dt data-i18n="glossary.fenced.term"></dt><dd data-i18n="glossary.fenced.text"></dd></div>
      <div class="glossary-item" id="term-session_timeout"><dt data-i18n="glossary.session_timeout.term"></dt><dd data-i18n="glossary.session_timeout.text"></dd></div>
      <div class="glossary-item" id="term-lag_time"><dt data-i18n="glossary.lag_time.term"></dt><dd data-i18n="glossary.lag_time.text"></dd></div>
      <div class="glossary-item" id="term-stale_leader"><dt data-i18n="glossary.stale_leader.term"></dt><dd data-i18n="glossary.stale_leader.text"></dd></div>
      <div class="glossary-item" id="term-starting"><dt data-i18n="glossary.starting.term"></dt><dd data-i18n="glossary.starting.text"></dd></div>
      <div class="glossary-item" id="term-unclean"><dt data-i18n="glossary.unclean.term"></dt><dd data-i18n="glossary.unclean.text"></dd></div>
      <div class="glossary-item" id="term-not_enough_replicas"><dt data-i18n="glossary.not_enough_replicas.term"></dt><dd data-i18n="glossary.not_enough_replicas.text"></dd></div>
      <div class="glossary-item" id="term-network_exception"><dt data-i18n="glossary.network_exception.term"></dt><dd data-i18n="glossary.network_exception.text"></dd></div>
      <div class="glossary-item" id="term-idempotence"><dt data-i18n="glossary.idempotence.term"></dt><dd data-i18n="glossary.idempotence.text"></dd></div>
    </dl>
  </dialog>

  <dialog id="dlg-settings" class="dialog" aria-labelledby="settings-title">
    <form id="settings-form" method="dialog">
      <div class="dialog-head"><h2 id="settings-title" data-i18n="settings.title">Settings</h2><button type="button" class="close" data-close aria-label="Close" data-i18n-attr="aria-label:common.close">✕</button></div>
      <p class="muted small" data-i18n="settings.intro">Changing the settings rebuilds the run: the same steps are replayed under the new settings, so their outcome may change. Choosing another Kafka version moves the settings left at the old version's defaults to the new version's.</p>
      <div class="form-grid">
        <label class="span-all"><span data-i18n="settings.version">Kafka version</span>
          <select name="protocol" aria-describedby="settings-version-notes"></select>
        </label>
        <div id="settings-version-notes" class="version-notes span-all" aria-live="polite"></div>
        <label><span data-i18n="settings.brokers">Brokers</span> <input type="number" name="brokers" min="1" max="7" required></label>
        <label><span data-i18n="settings.partitions">Partitions</span> <input type="number" name="partitions" min="1" max="12" required></label>
        <label><span data-i18n="settings.replication_factor">Replication factor</span> <input type="number" name="replication_factor" min="1" max="7" placeholder="default" data-i18n-attr="placeholder:settings.replication_factor_default"></label>
        <label class="span-all"><span data-i18n="settings.racks">Racks: each broker's broker.rack, comma-separated</span> <input type="text" name="racks" maxlength="300" autocomplete="off" spellcheck="false" placeholder="none (e.g. a,b,c)" data-i18n-attr="placeholder:settings.racks_placeholder"></label>
        <label class="check"><input type="checkbox" name="auto_leader_rebalance"> auto.leader.rebalance.enable</label>
        <label><span>leader.imbalance.per.broker.percentage</span> <input type="number" name="leader_imbalance_per_broker_percentage" min="0" max="100" required></label>
        <label><span data-i18n="settings.imbalance_interval">Leader imbalance check interval ms</span> <input type="number" name="leader_imbalance_check_interval_ms" min="1" max="3600000" required></label>
        <label><span>min.insync.replicas</span> <input type="number" name="min_insync_replicas" min="1" max="7" required></label>
        <label class="check"><input type="checkbox" name="unclean_leader_election"> unclean.leader.election.enable</label>
        <label><span>replica.lag.time.max.ms</span> <input type="number" name="replica_lag_time_max_ms" min="2" max="3600000" required></label>
        <label><span data-i18n="settings.session_timeout">Broker session timeout ms</span> <input type="number" name="broker_session_timeout_ms" min="1" max="3600000" required></label>
        <label><span data-i18n="settings.checkpoint_interval">HW checkpoint interval ms</span> <input type="number" name="hw_checkpoint_interval_ms" min="1" max="3600000" required></label>
        <label><span>request.timeout.ms</span> <input type="number" name="request_timeout_ms" min="1" max="3600000" required></label>
        <label class="check"><input type="checkbox" name="auto_fetch"> <span data-i18n="settings.timed_mode">Timed mode: followers fetch on their own</span></label>
        <label><span>replica.fetch.wait.max.ms</span> <input type="number" name="replica_fetch_wait_max_ms" min="10" max="3600000" required></label>
        <label><span>replica.fetch.backoff.ms</span> <input type="number" name="replica_fetch_backoff_ms" min="10" max="3600000" required></label>
        <label><span data-i18n="settings.link_latency">Link latency ms</span> <input type="number" name="link_latency_ms" min="0" max="3600000" required></label>
        <label><span data-i18n="settings.seed">Seed</span> <input type="number" name="seed" min="0" max="9007199254740991" required></label>
        <label class="check"><input type="checkbox" name="enable_idempotence"> <span data-i18n="settings.idempotence">Producer enable.idempotence</span></label>
        <label><span data-i18n="settings.retries">Producer retries</span> <input type="number" name="retries" min="0" max="2147483647" required></label>
        <label><span data-i18n="settings.delivery_timeout">Producer delivery.timeout.ms</span> <input type="number" name="delivery_timeout_ms" min="1" max="3600000" required></label>
        <label><span data-i18n="settings.retry_backoff">Producer retry.backoff.ms</span> <input type="number" name="retry_backoff_ms" min="1" max="3600000" required></label>
        <label><span data-i18n="settings.retry_backoff_max">Producer retry.backoff.max.ms</span> <input type="number" name="retry_backoff_max_ms" min="1" max="3600000" required></label>
        <label><span data-i18n="settings.max_in_flight">Producer max.in.flight.requests.per.connection</span> <input type="number" name="max_in_flight_requests_per_connection" min="1" max="100" required></label>
        <label><span data-i18n="settings.offset_reset">Consumer auto.offset.reset</span> <select name="auto_offset_reset"><option value="latest">latest</option><option value="earliest">earliest</option><option value="none">none</option></select></label>
      </div>
      <p id="settings-error" class="error" role="alert" hidden></p>
      <div class="dialog-foot">
        <button type="button" data-close data-i18n="common.cancel">Cancel</button>
        <button type="submit" class="primary" value="apply" data-i18n="settings.apply">Apply and rebuild</button>
      </div>
    </form>
  </dialog>

  <dialog id="dlg-rules" class="dialog wide" aria-labelledby="rules-title">
    <div class="dialog-head"><h2 id="rules-title" data-i18n="rules_dialog.title">Rules in force</h2><button type="button" class="close" data-close aria-label="Close" data-i18n-attr="aria-label:common.close">✕</button></div>
    <p class="muted small" data-i18n="rules_dialog.intro">The rules of Kafka's replication that changed between releases, as the model applies them: each names the KIP or JIRA that brought it, where it lives in Kafka's code and the Kafka release it came with. Settings a scenario does not set take its version's defaults.</p>
    <label class="rules-pick"><span data-i18n="rules_dialog.version">Version</span> <select id="rules-version" aria-label="Kafka version to show the rules of" data-i18n-attr="aria-label:rules_dialog.version_label"></select></label>
    <div id="rules-body" class="rules-body"></div>
  </dialog>

  <dialog id="dlg-explore" class="dialog" aria-labelledby="explore-title">
    <form id="explore-form" method="dialog">
      <div class="dialog-head"><h2 id="explore-title" data-i18n="nav.explore">Find a way to lose data</h2><button type="button" class="close" data-close aria-label="Close" data-i18n-attr="aria-label:common.close">✕</button></div>
      <p class="muted small"><span data-i18n="explore.intro">Searches every sequence of produces, fetches, crashes, restarts, elections and clock steps (shortest first) for one that breaks a guarantee, under the current settings:</span> <span id="explore-settings"></span></p>
      <div class="form-grid">
        <label><span data-i18n="explore.acks">Producer acks</span>
          <select name="acks"><option value="all">all</option><option value="1" data-i18n="explore.acks1">1 (acks=1 losses are allowed, not reported)</option></select>
        </label>
        <label><span data-i18n="explore.depth">Depth (steps)</span> <input type="number" name="depth" min="1" max="64" value="8" required></label>
        <label><span data-i18n="explore.max_states">Max states</span> <input type="number" name="max_states" min="1000" max="12000000" value="500000" required></label>
        <label><span data-i18n="explore.strategy">Strategy</span>
          <select name="strategy"><option value="bfs" data-i18n="explore.bfs">shortest first (exhaustive)</option><option value="random" data-i18n="explore.random">random walks</option></select>
        </label>
        <label class="check"><input type="checkbox" name="power_loss"> <span data-i18n="explore.power_loss">allow power loss (lose unflushed records)</span></label>
        <label class="check"><input type="checkbox" name="network_faults"> <span data-i18n="explore.network_faults">allow network faults (cuts and heals)</span></label>
        <label class="check"><input type="checkbox" name="shutdowns"> <span data-i18n="explore.shutdowns">allow controlled shutdowns (and under KRaft a shutdown's request alone)</span></label>
        <label class="check" id="explore-rack-faults" hidden><input type="checkbox" name="rack_faults"> <span data-i18n="explore.rack_faults">allow a rack's faults (all its brokers crash at once, or the rack is cut off)</span></label>
        <label class="check"><input type="checkbox" name="unclean"> <span data-i18n="explore.unclean">allow unclean leader election (what it loses is allowed by Kafka's contract and not reported; off unless checked, even under 0.10, whose default is on)</span></label>
      </div>
      <div id="explore-progress" class="explore-progress" hidden>
        <progress id="explore-bar" max="1" value="0" aria-label="Search progress" data-i18n-attr="aria-label:explore.progress_label"></progress>
        <span id="explore-status" class="small" aria-live="polite"></span>
      </div>
      <p id="explore-result" class="explore-result" role="status" hidden></p>
      <div class="dialog-foot">
        <button type="button" id="btn-explore-cancel" aria-label="Cancel search" disabled data-i18n="explore.cancel" data-i18n-attr="aria-label:explore.cancel_label">Cancel search</button>
        <button type="submit" id="btn-explore-start" class="primary" value="start" data-i18n="explore.search">Search</button>
      </div>
    </form>
  </dialog>

  <dialog id="dlg-fork" class="dialog" aria-labelledby="fork-title">
    <form id="fork-form" method="dialog">
      <div class="dialog-head"><h2 id="fork-title" data-i18n="fork.title">What if…</h2><button type="button" class="close" data-close aria-label="Close" data-i18n-attr="aria-label:common.close">✕</button></div>
      <p class="muted small" data-i18n="fork.intro">Change one thing and run the same steps again.</p>
      <div class="form-grid">
        <label class="span-all"><span data-i18n="fork.kind_label">Change</span> <select id="fork-kind"></select></label>
        <label class="span-all"><span data-i18n="fork.value_label">To</span>
          <select id="fork-value" aria-label="New value" data-i18n-attr="aria-label:fork.value_label"></select>
          <input id="fork-number" type="number" hidden aria-label="New value" data-i18n-attr="aria-label:fork.value_label">
        </label>
        <p id="fork-current" class="muted small span-all"></p>
      </div>
      <p id="fork-error" class="error" role="alert" hidden></p>
      <div class="dialog-foot">
        <button type="button" id="btn-fork-grid" data-i18n="fork.grid">Every setting's outcome at once…</button>
        <button type="submit" class="primary" id="btn-fork-apply" data-i18n="fork.apply">Fork</button>
      </div>
    </form>
  </dialog>

  <dialog id="dlg-whatif" class="dialog wide" aria-labelledby="whatif-title">
    <div class="dialog-head"><h2 id="whatif-title" data-i18n="whatif.title">What if: every setting's outcome</h2><button type="button" class="close" data-close aria-label="Close" data-i18n-attr="aria-label:common.close">✕</button></div>
    <p class="muted small" data-i18n="whatif.intro">The same steps under every Kafka version, acks (given to every produce), min.insync.replicas and unclean election; each cell is the most severe outcome and the step where it happened. Click a cell to open that run.</p>
    <div id="whatif-progress" class="explore-progress" hidden>
      <progress id="whatif-bar" max="1" value="0" aria-label="Progress" data-i18n-attr="aria-label:whatif.progress_label"></progress>
      <span id="whatif-status" class="small" aria-live="polite"></span>
      <button type="button" id="btn-whatif-cancel" data-i18n="whatif.cancel">Stop</button>
    </div>
    <p id="whatif-error" class="error" role="alert" hidden></p>
    <div id="whatif-grid" class="whatif-host"></div>
    <div id="whatif-legend"></div>
  </dialog>

  <dialog id="dlg-embed" class="dialog" aria-labelledby="embed-title">
    <div class="dialog-head"><h2 id="embed-title" data-i18n="embed.title">Embed this run</h2><button type="button" class="close" data-close aria-label="Close" data-i18n-attr="aria-label:common.close">✕</button></div>
    <p class="muted small" data-i18n="embed.intro">Paste this into a page. The embedded view plays the run as it is now, with compact controls; it fits an 800×500 frame or smaller.</p>
    <h3 class="embed-kind" data-i18n="embed.iframe_title">An iframe</h3>
    <textarea id="embed-code" readonly rows="4" aria-label="Embed code" data-i18n-attr="aria-label:embed.code_label"></textarea>
    <div class="dialog-foot">
      <a id="embed-preview" target="_blank" rel="noopener" href="./" data-i18n="embed.preview">Open the embedded view</a>
      <button type="button" id="btn-embed-copy" class="primary" data-i18n="embed.copy">Copy code</button>
    </div>
    <h3 class="embed-kind" data-i18n="embed.element_title">Or the element, from the npm package</h3>
    <p class="muted small" data-i18n="embed.element_intro">Install highwater-playground, import it once, and place the element: it renders in its own shadow root, so your site's styles do not change it.</p>
    <textarea id="embed-element" readonly rows="4" aria-label="Element code" data-i18n-attr="aria-label:embed.element_label"></textarea>
    <div class="dialog-foot">
      <button type="button" id="btn-embed-element-copy" data-i18n="embed.copy">Copy code</button>
    </div>
  </dialog>

  <dialog id="dlg-trace" class="dialog wide" aria-labelledby="trace-title">
    <div class="dialog-head"><h2 id="trace-title" data-i18n="trace.title">Trace</h2><button type="button" class="close" data-close aria-label="Close" data-i18n-attr="aria-label:common.close">✕</button></div>
    <p class="muted small"><span data-i18n="trace.intro">Every event up to this step, exactly as the command line prints it (the trace is always in English):</span> <code>highwater run</code></p>
    <pre id="trace-text" class="trace-text" tabindex="0" lang="en"></pre>
    <div class="dialog-foot">
      <button type="button" id="btn-trace-download" data-i18n="trace.download">Download .txt</button>
      <button type="button" id="btn-trace-copy" class="primary" data-i18n="trace.copy">Copy</button>
    </div>
  </dialog>

  <div id="help" popover class="help">
    <h2 data-i18n="help.read_title">How to read it</h2>
    <ul class="help-list">
      <li data-i18n="help.cells">Cells are records: offset, value and leader epoch; the colour is the epoch. Solid cells are below the high watermark (committed); pale, dashed ones are not.</li>
      <li data-i18n="help.markers">HW high watermark, LEO log end offset, ckpt the HW last written to the checkpoint file (shown when it differs).</li>
      <li data-i18n="help.remote">▴ 2,3 on the leader: where the leader believes followers 2 and 3 end. “LEO ?” means it has not heard from them in this epoch.</li>
      <li data-i18n="help.stale">A stale leader still believes it leads; the controller has moved on.</li>
      <li data-i18n="help.elr">ELR (KIP-966): an Eligible Leader Replica left the ISR while the ISR was below min.insync.replicas; it still holds every committed record and may be elected.</li>
      <li data-i18n="help.starting">A starting broker was restarted but waits to register with the controller until its old session expires; it serves nothing until then.</li>
      <li data-i18n="help.version">The Kafka version beside the step opens the rules in force in that version.</li>
      <li data-i18n="help.glossary">Every abbreviation is explained in the Glossary.</li>
    </ul>
    <h2 data-i18n="help.keyboard">Keyboard</h2>
    <dl class="keys">
      <dt><kbd>Space</kbd></dt><dd data-i18n="help.key_space">play / pause</dd>
      <dt><kbd>→</kbd></dt><dd data-i18n="help.key_right">step forward</dd>
      <dt><kbd>←</kbd></dt><dd data-i18n="help.key_left">step back</dd>
      <dt><kbd>Home</kbd> / <kbd>End</kbd></dt><dd data-i18n="help.key_home">start / end of the timeline</dd>
      <dt><kbd>←</kbd> / <kbd>→</kbd></dt><dd data-i18n="help.key_toolbar">in the top row and the Tools row, reached with Tab: the previous or next button (↑ and ↓ in the Export menu)</dd>
      <dt><kbd>?</kbd></dt><dd data-i18n="help.key_help">this help</dd>
    </dl>
    <button type="button" popovertarget="help" popovertargetaction="hide" data-i18n="common.close">Close</button>
  </div>
</div>
`;

const SVG_NS = 'http://www.w3.org/2000/svg';
const VOID = new Set(['input', 'br', 'hr', 'img', 'meta', 'link', 'source', 'wbr', 'col', 'area']);
const TOKEN = /<\/([a-zA-Z][\w-]*)\s*>|<([a-zA-Z][\w-]*)((?:\s+[^\s=/>]+(?:="[^"]*")?)*)\s*(\/?)>|([^<]+)/g;
const ATTR = /([^\s=/>]+)(?:="([^"]*)")?/g;

/**
 * MARKUP as a DocumentFragment. It reads only the shapes MARKUP is written
 * in (elements, double-quoted attributes, text; no entities, no comments) and
 * throws on anything else, so a slip in MARKUP fails loudly in every test.
 */
export function markupFragment(doc = document) {
  const fragment = doc.createDocumentFragment();
  const open = [fragment];
  let at = 0;
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(MARKUP); m; m = TOKEN.exec(MARKUP)) {
    if (m.index !== at) throw new Error(`template: cannot read the markup at ${at}`);
    at = TOKEN.lastIndex;
    const parent = open[open.length - 1];
    const [, closing, tag, attrs, selfClosing, text] = m;
    if (text !== undefined) {
      if (text.includes('&')) throw new Error('template: no entities in the markup');
      // Whitespace between elements is kept, as the parser would: inline buttons and labels are spaced by it.
      parent.append(doc.createTextNode(text));
    } else if (closing) {
      if (open.length < 2 || open[open.length - 1].localName !== closing) throw new Error(`template: </${closing}> closes nothing`);
      open.pop();
    } else {
      const svg = tag === 'svg' || (parent.namespaceURI === SVG_NS && parent.localName !== 'foreignObject');
      const el = svg ? doc.createElementNS(SVG_NS, tag) : doc.createElement(tag);
      ATTR.lastIndex = 0;
      for (let a = ATTR.exec(attrs); a; a = ATTR.exec(attrs)) el.setAttribute(a[1], a[2] ?? '');
      parent.append(el);
      if (!selfClosing && !VOID.has(tag)) open.push(el);
    }
  }
  if (at !== MARKUP.length || open.length !== 1) throw new Error('template: the markup is not closed');
  return fragment;
}
