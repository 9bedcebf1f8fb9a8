import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EVENT_TYPES } from '../src/events/catalog.js';
import { ACTIONS, TRIGGERS } from '../src/workflows/catalog.js';
import { graphErrors, NODE_ID_MAX } from '../src/workflows/graph.js';
import { triggerConfigSchema } from '../src/workflows/graph-schema.js';
import { Ajv2020 } from 'ajv/dist/2020.js';

const trigger = { id: 't', kind: 'trigger', type: 'call.ended', config: {} };
const sms = { id: 's', kind: 'action', type: 'send_sms', config: { message: 'Hi' } };

describe('workflow graph validation', () => {
  it('accepts an absent or empty graph (a new draft) and a valid graph', () => {
    assert.deepEqual(graphErrors(undefined), {});
    assert.deepEqual(graphErrors(null), {});
    assert.deepEqual(graphErrors({}), {});
    assert.deepEqual(graphErrors({ nodes: [], edges: [] }), {});
    assert.deepEqual(graphErrors({ nodes: [trigger, sms], edges: [{ from: 't', to: 's' }] }), {});
  });

  it('needs a trigger', () => {
    assert.deepEqual(graphErrors({ nodes: [sms] }), {
      'trigger_config.nodes': ['A workflow needs at least one trigger node.'],
    });
  });

  it('names the node whose type is not in the catalog', () => {
    const errors = graphErrors({ nodes: [trigger, { id: 'x', kind: 'action', type: 'teleport', config: {} }] });
    assert.deepEqual(errors, {
      'trigger_config.nodes.1.type': ['Node "x" (teleport): teleport is not in the action catalog.'],
    });
    const wrongKind = graphErrors({ nodes: [{ ...trigger, type: 'send_sms' }] });
    assert.match(wrongKind['trigger_config.nodes.0.type'][0], /not in the trigger catalog/);
  });

  it('checks each config against its catalog entry', () => {
    const errors = graphErrors({
      nodes: [
        trigger,
        { id: 'w', kind: 'action', type: 'wait', config: { amount: 0, unit: 'weeks' } },
        { id: 's', kind: 'action', type: 'send_sms', config: { extra: 1 } },
        { id: 'h', kind: 'action', type: 'send_webhook', config: { url: 'ftp://x' } },
      ],
    });
    assert.deepEqual(errors, {
      'trigger_config.nodes.1.config.amount': ['Node "w" (wait): the amount field must be at least 1.'],
      'trigger_config.nodes.1.config.unit': ['Node "w" (wait): the unit field must be one of minutes, hours, days.'],
      'trigger_config.nodes.2.config.message': ['Node "s" (send_sms): the message field is required.'],
      'trigger_config.nodes.2.config.extra': ['Node "s" (send_sms): extra is not a setting of send_sms.'],
      'trigger_config.nodes.3.config.url': ['Node "h" (send_webhook): the url field must be an http or https URL.'],
    });
  });

  it('checks ids and edges, and refuses cycles and edges into a trigger', () => {
    assert.match(
      graphErrors({ nodes: [trigger, { ...sms, id: 't' }] })['trigger_config.nodes.1.id'][0],
      /used by another node/,
    );
    assert.match(
      graphErrors({ nodes: [trigger, sms], edges: [{ from: 't', to: 'nope' }] })['trigger_config.edges.0.to'][0],
      /names no node/,
    );
    assert.match(
      graphErrors({ nodes: [trigger, sms], edges: [{ from: 's', to: 't' }] })['trigger_config.edges.0.to'][0],
      /is a trigger/,
    );
    const second = { ...sms, id: 's2' };
    const cycle = graphErrors({
      nodes: [trigger, sms, second],
      edges: [
        { from: 't', to: 's' },
        { from: 's', to: 's2' },
        { from: 's2', to: 's' },
      ],
    });
    assert.match(cycle['trigger_config.edges'][0], /cycle/);
    assert.deepEqual(graphErrors('x'), {
      trigger_config: ['The trigger config must be an object with nodes and edges.'],
    });
    assert.ok(graphErrors({ nodes: 'x' })['trigger_config.nodes']);
  });

  it('has every webhook event as a trigger and the required actions', () => {
    assert.deepEqual(
      TRIGGERS.map((t) => t.type),
      EVENT_TYPES.map(([type]) => type),
    );
    assert.equal(TRIGGERS.length, 25);
    for (const action of ['send_sms', 'send_webhook', 'move_to_pipeline_stage', 'assign_agent', 'wait', 'branch']) {
      assert.ok(
        ACTIONS.some((a) => a.type === action),
        action,
      );
    }
  });

  it("the graph's JSON Schema (the document's trigger_config) agrees with the checks, wherever a schema can say it", () => {
    const valid = new Ajv2020({ strict: false }).compile(triggerConfigSchema());
    const graphs: Array<[string, unknown]> = [
      ['a trigger and an action', { nodes: [trigger, sms], edges: [{ from: 't', to: 's' }] }],
      ['an empty draft', { nodes: [], edges: [] }],
      ['an id too long', { nodes: [{ ...trigger, id: 'x'.repeat(NODE_ID_MAX + 1) }] }],
      ['a type in no catalog', { nodes: [trigger, { ...sms, type: 'teleport' }] }],
      ['a trigger type as an action', { nodes: [trigger, { ...sms, kind: 'action', type: 'call.ended' }] }],
      ['a config key the entry has not', { nodes: [trigger, { ...sms, config: { message: 'Hi', extra: 1 } }] }],
      ['a required config field left out', { nodes: [trigger, { ...sms, config: {} }] }],
      ['a config text too long', { nodes: [trigger, { ...sms, config: { message: 'x'.repeat(1601) } }] }],
      [
        'a value outside its enum',
        { nodes: [trigger, { id: 'w', kind: 'action', type: 'wait', config: { amount: 1, unit: 'weeks' } }] },
      ],
      ['an edge without its end', { nodes: [trigger, sms], edges: [{ from: 't' }] }],
      ['too many nodes', { nodes: Array.from({ length: 201 }, (_, i) => ({ ...trigger, id: `t${i}` })) }],
    ];
    for (const [what, graph] of graphs) {
      assert.equal(valid(graph), Object.keys(graphErrors(graph)).length === 0, what);
    }
  });
});
