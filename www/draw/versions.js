// Kafka version presets as the page shows them: the settings' version picker
// and the "rules in force" dialog. Pure: the core's catalogue (`versions()`)
// in, descriptions of DOM out. Every rule, source and default comes from the
// catalogue; this file only arranges it.

import { h } from './dom.js';
import { t } from '../words/i18n.js';
import { defaultLabel, VERSION_TEXT, ruleSentence, settingValue } from '../words/describe.js';

/** The catalogue's rows by rule id. */
function ruleTable(catalogue) {
  return new Map(catalogue.rules.map((r) => [r.rule, r]));
}

function indexOf(catalogue, name) {
  return catalogue.versions.findIndex((v) => v.name === name);
}

/** A version's changes against the previous preset, as short labels (sources). */
function changeLabel(catalogue, v, i) {
  const rules = ruleTable(catalogue);
  const source = (id) => (rules.get(id) || { source: id }).source;
  if (i === 0) return v.introduced.map(source).join(', ');
  const parts = [];
  if (v.introduced.length) parts.push(`+ ${v.introduced.map(source).join(', ')}`);
  if (v.retired.length) parts.push(`− ${v.retired.map(source).join(', ')}`);
  return parts.join('; ');
}

/** The same with the rules' summaries, for a tooltip. */
function changeSummary(catalogue, v, i) {
  const rules = ruleTable(catalogue);
  const line = (id) => {
    const r = rules.get(id);
    return r ? `${ruleSentence(r)} (${r.source})` : id;
  };
  const out = [];
  if (i === 0) return v.introduced.map(line).join('\n');
  for (const id of v.introduced) out.push(`${VERSION_TEXT.introduced()}: ${line(id)}`);
  for (const id of v.retired) out.push(`${VERSION_TEXT.retired()}: ${line(id)}`);
  return out.join('\n');
}

/**
 * The options of a version picker: "Kafka 3.7 (the HW waits while the ISR is
 * below min.insync.replicas)", in plain words; the rules' sentences and
 * sources (KIP-966, KAFKA-15583) and the names a link may use ("modern") in
 * the tooltip. A version without plain words is labelled by its sources.
 */
export function versionOptions(catalogue) {
  return catalogue.versions.map((v, i) => {
    const plain = VERSION_TEXT.whatChanged(v.name);
    const changes = changeLabel(catalogue, v, i);
    const title = [`${VERSION_TEXT.name(v.name)}${VERSION_TEXT.aliases(v)}`, changeSummary(catalogue, v, i)].filter(Boolean).join('\n');
    return h('option', { value: v.name, key: v.name, title },
      plain || `${v.name}${VERSION_TEXT.aliases(v)}${changes ? `: ${changes}` : ''}`);
  });
}

/** A version's defaults as "label value" items, with the run's own value where it differs. */
function defaultsList(v, config) {
  return h('dl', { class: 'version-defaults' },
    Object.entries(v.defaults).map(([key, value]) => [
      h('dt', { key: `t${key}` }, defaultLabel(key)),
      h('dd', { key: `d${key}`, 'data-default': key },
        settingValue(value, key),
        config && key in config && config[key] !== value
          ? h('span', { class: 'muted' }, ` (${VERSION_TEXT.thisRun()}: ${settingValue(config[key], key)})`)
          : null),
    ]),
  );
}

/** Defaults that differ from the previous preset: "label: old → new". */
function defaultChanges(prev, v) {
  if (!prev) return [];
  return Object.entries(v.defaults)
    .filter(([key, value]) => prev.defaults[key] !== value)
    .map(([key, value]) => `${defaultLabel(key)}: ${settingValue(prev.defaults[key], key)} → ${settingValue(value, key)}`);
}

/** One rule: its summary, and its source, release and code (`brief`: the source only). */
function ruleItem(rule, mark, brief = false) {
  return h('li', { class: 'rule', key: rule.rule, 'data-rule': rule.rule },
    h('p', { class: 'rule-summary' },
      mark ? h('span', { class: `tag ${mark === VERSION_TEXT.introduced() ? 'tag-ok' : 'tag-muted'}` }, mark) : null,
      mark ? ' ' : null,
      ruleSentence(rule),
      brief ? h('span', { class: 'muted' }, ' · ', h('span', { class: 'rule-source', 'data-testid': 'rule-source' }, rule.source)) : null),
    brief
      ? null
      : h('p', { class: 'rule-meta' },
          h('span', { class: 'rule-source', 'data-testid': 'rule-source' }, rule.source),
          h('span', { class: 'muted' }, ` · ${VERSION_TEXT.release(rule.kafka_version)} · `),
          h('code', { class: 'rule-code' }, rule.code)),
  );
}

/** Under the settings' version picker: what changed at this version, and its defaults. */
export function versionNotes(catalogue, name) {
  const i = indexOf(catalogue, name);
  if (i < 0) return [];
  const v = catalogue.versions[i];
  const prev = i > 0 ? catalogue.versions[i - 1] : null;
  const rules = ruleTable(catalogue);
  const changed = [
    ...v.introduced.map((id) => ruleItem(rules.get(id), i === 0 ? null : VERSION_TEXT.introduced(), true)),
    ...v.retired.map((id) => ruleItem(rules.get(id), VERSION_TEXT.retired(), true)),
  ];
  const defaults = Object.entries(v.defaults).map(([key, value]) => `${defaultLabel(key)} ${settingValue(value, key)}`);
  return [
    h('p', { class: 'small' }, h('strong', null, prev ? VERSION_TEXT.changedHeading(prev.name) : VERSION_TEXT.oldest())),
    changed.length ? h('ul', { class: 'rule-list compact' }, changed) : h('p', { class: 'muted small' }, VERSION_TEXT.unchanged()),
    defaultChanges(prev, v).map((text, k) => h('p', { class: 'small', key: `dc${k}` }, text)),
    h('p', { class: 'small', 'data-testid': 'version-defaults' }, h('strong', null, `${VERSION_TEXT.defaultsHeading()} (${v.name}): `), defaults.join(' · ')),
  ];
}

/**
 * The rules dialog for one version: its defaults (and the run's values when it
 * is the run's version), what changed from the previous preset, and every rule
 * in force with its source, code and release.
 */
export function renderRules(catalogue, name, config) {
  const i = indexOf(catalogue, name);
  if (i < 0) return h('p', { class: 'error' }, t('version.unknown', { name }));
  const v = catalogue.versions[i];
  const prev = i > 0 ? catalogue.versions[i - 1] : null;
  const rules = ruleTable(catalogue);
  const isRun = config && config.protocol === v.name;
  const inForce = v.rules.map((id) => rules.get(id)).filter(Boolean);
  const changed = [
    ...(prev ? v.introduced.map((id) => ruleItem(rules.get(id), VERSION_TEXT.introduced())) : []),
    ...v.retired.map((id) => ruleItem(rules.get(id), VERSION_TEXT.retired())),
  ];
  const defaults = defaultChanges(prev, v);
  return [
    h('div', { class: 'rules-title' },
      h('h3', { 'data-testid': 'rules-version' }, `${VERSION_TEXT.name(v.name)}${VERSION_TEXT.aliases(v)}`),
      isRun ? h('span', { class: 'tag tag-ok' }, VERSION_TEXT.thisRun()) : null),
    h('section', { class: 'rules-section', role: 'group', 'aria-label': VERSION_TEXT.defaultsHeading() },
      h('h4', null, VERSION_TEXT.defaultsHeading()),
      defaultsList(v, isRun ? config : null)),
    h('section', { class: 'rules-section', role: 'group', 'data-testid': 'rules-changed', 'aria-label': prev ? VERSION_TEXT.changedHeading(prev.name) : VERSION_TEXT.oldest() },
      h('h4', null, prev ? VERSION_TEXT.changedHeading(prev.name) : VERSION_TEXT.oldest()),
      changed.length ? h('ul', { class: 'rule-list' }, changed) : null,
      defaults.length ? h('ul', { class: 'plain-list' }, defaults.map((t, k) => h('li', { key: k }, t))) : null,
      prev && !changed.length ? h('p', { class: 'muted' }, VERSION_TEXT.unchanged()) : null),
    h('section', { class: 'rules-section', role: 'group', 'data-testid': 'rules-in-force', 'aria-label': VERSION_TEXT.rulesHeading(inForce.length) },
      h('h4', null, VERSION_TEXT.rulesHeading(inForce.length)),
      h('ul', { class: 'rule-list' }, inForce.map((r) => ruleItem(r, null)))),
  ];
}
