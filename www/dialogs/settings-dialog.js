// The Settings dialog (the run's configuration; applying rebuilds the run)
// and the Rules-in-force dialog (what each Kafka version's model does).

import { core, isCrash } from '../core.js';
import { h, patch } from '../draw/dom.js';
import { t, language, hasBundle } from '../words/i18n.js';
import { excerpt } from '../words/user-text.js';
import { VERSION_TEXT } from '../words/describe.js';
import { phrase } from '../words/event-text.js';
import { versionOptions, versionNotes, renderRules } from '../draw/versions.js';

const SETTINGS_NUMBERS = ['brokers', 'partitions', 'leader_imbalance_per_broker_percentage', 'leader_imbalance_check_interval_ms', 'min_insync_replicas', 'replica_lag_time_max_ms', 'broker_session_timeout_ms', 'hw_checkpoint_interval_ms', 'request_timeout_ms', 'replica_fetch_wait_max_ms', 'replica_fetch_backoff_ms', 'link_latency_ms', 'seed', 'retries', 'delivery_timeout_ms', 'retry_backoff_ms', 'retry_backoff_max_ms', 'max_in_flight_requests_per_connection'];
const SETTINGS_CHECKS = ['unclean_leader_election', 'auto_fetch', 'enable_idempotence', 'auto_leader_rebalance'];
const SETTINGS_CHOICES = ['auto_offset_reset'];
// What a scenario's config leaves out means these (docs/scenario-format.md).
const DEFAULTS = { partitions: 1, auto_leader_rebalance: true, leader_imbalance_per_broker_percentage: 10, leader_imbalance_check_interval_ms: 300000 };
const setting = (config, name) => config[name] ?? DEFAULTS[name];

/**
 * The topic's optional settings from the form: the replication factor
 * (blank: the default, `replication_factor()`), and each broker's rack,
 * comma-separated (blank: no racks). An error's words, or the settings.
 */
function topicFields(form, brokers) {
  const out = {};
  const rf = form.elements.replication_factor.value.trim();
  if (rf !== '') {
    const n = Number(rf);
    if (!Number.isInteger(n) || n < 1) return { error: t('settings.not_whole', { field: t('settings.replication_factor'), value: excerpt(rf) }) };
    out.replication_factor = n;
  }
  const racks = form.elements.racks.value.trim();
  if (racks !== '') {
    const names = racks.split(',').map((r) => r.trim());
    if (names.length !== brokers || names.some((r) => r === '')) return { error: t('settings.racks_count', { count: names.filter((r) => r !== '').length, brokers }) };
    out.racks = names;
  }
  return { value: out };
}

/**
 * The rules' sentences (the version picker's tooltips, the notes under it, the
 * rules in force): in English the core's own (ruleSentence), in another
 * language the locale bundle `rules`, fetched when Settings or the rules in
 * force first open; a dialog that shows them opens once they are in (at once
 * when they are: pg.wordsFor).
 */
const rulesIn = () => language() === 'en' || hasBundle('rules');

export function wireSettings(pg) {
  const $ = (id) => pg.$(id);
  // The whole config the form stands for, including settings it has no field for.
  let base = null;

  async function open() {
    if (!rulesIn() && !(await pg.wordsFor('rules', t('settings.title')))) return;
    const form = $('settings-form');
    for (const name of SETTINGS_NUMBERS) form.elements[name].value = String(setting(pg.config, name));
    for (const name of SETTINGS_CHECKS) form.elements[name].checked = Boolean(setting(pg.config, name));
    form.elements.replication_factor.value = pg.config.replication_factor == null ? '' : String(pg.config.replication_factor);
    form.elements.racks.value = (pg.config.racks || []).join(',');
    for (const name of SETTINGS_CHOICES) form.elements[name].value = pg.config[name];
    patch(form.elements.protocol, versionOptions(core().versions));
    form.elements.protocol.value = pg.config.protocol;
    base = { ...pg.config };
    patch($('settings-version-notes'), versionNotes(core().versions, pg.config.protocol));
    $('settings-error').hidden = true;
    if (!$('dlg-settings').open) $('dlg-settings').showModal();
  }

  /**
   * Another version chosen: the core moves every setting left at the old
   * version's default to the new version's (withProtocol), those without a
   * field in the form too; the form shows the result before it is applied.
   * Fields that do not hold a valid number are left as typed.
   */
  function onVersion() {
    const form = $('settings-form');
    const from = base || pg.config;
    const to = form.elements.protocol.value;
    const config = { ...from };
    const typed = new Set();
    for (const name of SETTINGS_NUMBERS) {
      const raw = form.elements[name].value.trim();
      const n = Number(raw);
      if (raw !== '' && Number.isInteger(n) && n >= 0) {
        config[name] = n;
        typed.add(name);
      }
    }
    for (const name of SETTINGS_CHECKS) config[name] = form.elements[name].checked;
    for (const name of SETTINGS_CHOICES) config[name] = form.elements[name].value;
    const r = pg.guarded(t('notice.could_not_switch_version'), () => core().withProtocol(config, to));
    if (!r.ok) {
      form.elements.protocol.value = from.protocol;
      return;
    }
    base = r.value;
    for (const name of SETTINGS_NUMBERS) if (typed.has(name)) form.elements[name].value = String(setting(r.value, name));
    for (const name of SETTINGS_CHECKS) form.elements[name].checked = Boolean(setting(r.value, name));
    for (const name of SETTINGS_CHOICES) form.elements[name].value = r.value[name];
    patch($('settings-version-notes'), versionNotes(core().versions, r.value.protocol));
  }

  function error(text) {
    const p = $('settings-error');
    p.textContent = text;
    p.hidden = false;
  }

  function apply(e) {
    e.preventDefault();
    const form = $('settings-form');
    const config = { ...(base || pg.config), protocol: form.elements.protocol.value };
    for (const name of SETTINGS_NUMBERS) {
      const raw = form.elements[name].value.trim();
      const n = Number(raw);
      if (raw === '' || !Number.isInteger(n) || n < 0) return error(t('settings.not_whole', { field: form.elements[name].closest('label').firstChild.textContent.trim(), value: excerpt(raw) }));
      config[name] = n;
    }
    for (const name of SETTINGS_CHECKS) config[name] = form.elements[name].checked;
    for (const name of SETTINGS_CHOICES) config[name] = form.elements[name].value;
    const topic = topicFields(form, config.brokers);
    if (topic.error) return error(topic.error);
    const from = base || pg.config;
    delete config.replication_factor;
    delete config.racks;
    Object.assign(config, topic.value);
    // An explicit assignment is of these brokers, partitions and replicas:
    // another shape places the topic anew.
    if (config.assignment && (config.brokers !== from.brokers || setting(config, 'partitions') !== setting(from, 'partitions') || config.replication_factor !== from.replication_factor)) delete config.assignment;
    pg.player.stop();
    const before = pg.currentScenario();
    const position = pg.sim.position();
    try {
      pg.loadScenario({ ...before, config }, { at: position });
    } catch (err) {
      if (isCrash(err)) { $('dlg-settings').close(); pg.recover(err); return undefined; }
      return error(t('settings.rejected', { message: phrase(err.message, t) }));
    }
    $('dlg-settings').close();
    pg.undo = { scenario: before, position };
    pg.notify('info', before.steps.length ? t('notice.settings_rebuilt', { count: before.steps.length }) : t('notice.settings_applied'), pg.undoAction());
    return undefined;
  }

  $('btn-settings').addEventListener('click', open);
  $('settings-form').addEventListener('submit', apply);
  $('settings-form').elements.protocol.addEventListener('change', onVersion);
}

/** The rules in force: every version's rules with their sources; the run's version first. */
export function wireRules(pg) {
  const $ = (id) => pg.$(id);
  const draw = (name) => {
    patch($('rules-body'), renderRules(core().versions, name, pg.config));
    $('rules-body').scrollTop = 0;
  };
  $('rules-version').addEventListener('change', () => draw($('rules-version').value));
  $('caption').addEventListener('click', async (e) => {
    if (!e.target.closest('button[data-action="rules"]')) return;
    if (!rulesIn() && !(await pg.wordsFor('rules', t('rules_dialog.title')))) return;
    const select = $('rules-version');
    patch(select, core().versions.versions.map((v) => h('option', { value: v.name, key: v.name }, VERSION_TEXT.option(v.name, v.name === pg.config.protocol))));
    select.value = pg.config.protocol;
    draw(pg.config.protocol);
    if (!$('dlg-rules').open) $('dlg-rules').showModal();
  });
}
