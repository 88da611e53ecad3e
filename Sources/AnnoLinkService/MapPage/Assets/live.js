'use strict';
// annolink map editor: live updates from other clients and the journal's undo/redo.
// docs/editor.md. The server's journal (GET /journal) says where the file stands; its `key`
// changes with every edit, undo or redo, whichever process made it. The page asks for it
// every POLL_MS while it is visible and, when the key is not the one its view was drawn at,
// draws the view again and reads the open popup's feature and annotation again.
document.addEventListener('annolink:ready', event => {
  const annolink = event.detail;
  const POLL_MS = 1000;
  let listening = false;  // the server holds a poll until the journal changes (PostGIS)
  const JOURNAL = 'journal';
  const body = document.body;

  const group = document.createElement('div');
  group.id = 'journal-tools';
  group.setAttribute('role', 'group');
  group.setAttribute('aria-label', 'edit journal');
  function button(name, text) {
    const b = document.createElement('button');
    b.type = 'button';
    b.name = name;
    b.textContent = text;
    b.disabled = true;
    group.append(b);
    return b;
  }
  const undoButton = button('undo', 'Undo');
  const redoButton = button('redo', 'Redo');
  const liveBox = document.createElement('span');
  liveBox.id = 'live';
  liveBox.textContent = '…';
  group.append(liveBox);
  annolink.tools.append(group);

  let known = null;     // the journal key the view was drawn at
  let state = null;     // the last answer of GET /journal
  let stepping = false; // an undo or redo in flight
  let viewsAtAdoption = null;
  let epoch = 0;        // raised when the page adopts a key itself: older polls are stale

  const views = () => Number(body.dataset.views || 0);

  // A request to the journal routes (with the tab's token): the answer's JSON, or an Error
  // with the server's words and the core's token hints (annolink.answer).
  async function journal(path, method) {
    return annolink.answer(await annolink.fetch(JOURNAL + path, { method: method || 'GET', cache: 'no-store' }));
  }

  function describeEntry(entry) {
    return '#' + entry.id + ': ' + entry.summary + (entry.user ? ' [' + entry.user + ']' : '');
  }

  // The buttons say what they would do, or why they cannot.
  function show(next) {
    state = next;
    body.dataset.journalKey = known || '';
    const why = next.readOnly ? 'the server is read-only' : (!next.mayEdit ? 'editing needs a token' : null);
    undoButton.disabled = stepping || !!why || !next.undo;
    redoButton.disabled = stepping || !!why || !next.redo;
    undoButton.title = why || (next.undo ? 'Undo ' + describeEntry(next.undo) : 'nothing to undo');
    redoButton.title = why || (next.redo ? 'Redo ' + describeEntry(next.redo) : 'nothing to redo');
    liveBox.textContent = 'live';
    liveBox.className = '';
    liveBox.title = (next.notifications !== undefined ? 'every server\'s edits are heard as they commit (PostgreSQL LISTEN/NOTIFY)'
      : 'the journal is read every ' + POLL_MS / 1000 + ' s') + '; newest entry #' + next.lastEntry;
  }

  // Draws the view again and reads the open popup's feature and annotation again.
  async function redraw() {
    await annolink.refresh();
    await refreshPopup();
    body.dataset.liveRedraws = String(Number(body.dataset.liveRedraws || 0) + 1);
  }

  // The open feature form, if any: its annotation text from the server, and each field the
  // user has not touched set to the stored value (a field being typed in is left alone).
  async function refreshPopup() {
    const form = document.querySelector('.leaflet-popup .feature-form');
    if (!form) return;
    const layer = annolink.featureLayers.find(l => l.name === form.dataset.layer);
    if (!layer) return;
    const oid = Number(form.dataset.oid);
    const found = await annolink.get('/' + layer.id + '/query', { objectIds: String(oid), outFields: '*', returnGeometry: 'false' });
    const box = form.querySelector('.annotation');
    if (!found.features.length) {
      if (box) box.textContent = '(this feature is gone: deleted by another edit)';
      return;
    }
    const attributes = found.features[0].attributes;
    for (const input of form.querySelectorAll('input[name]')) {
      if (input.value !== input.dataset.original || !(input.name in attributes)) continue;
      // Written as the popup writes it (a date as ISO 8601, not Esri JSON's milliseconds).
      const field = layer.fields.find(f => f.name === input.name) || { type: input.dataset.type };
      input.value = input.dataset.original = annolink.fieldText(field, attributes[input.name]);
    }
    const texts = await annolink.linkedAnnotation(layer, oid);
    if (box) box.textContent = texts.length ? texts.join(' / ') : '(no annotation)';
  }

  async function poll() {
    if (document.hidden) return;
    const asked = epoch;
    let next;
    try {
      // On PostGIS the server hears every server's edits (LISTEN) and holds the request
      // until one commits (up to 20 s); elsewhere it answers at once.
      next = await journal(known !== null && listening ? '?key=' + encodeURIComponent(known) + '&wait=20' : '');
    } catch (e) {
      // Said beside the buttons, not in the error box: it would fill a box every second.
      liveBox.textContent = 'not live';
      liveBox.className = 'offline';
      liveBox.title = annolink.describe(e);
      return;
    }
    if (stepping || asked !== epoch) return;
    const seenBefore = known;
    // The page's own edit was adopted (below), but no view followed it: draw one.
    const owed = viewsAtAdoption !== null && views() === viewsAtAdoption;
    viewsAtAdoption = null;
    known = next.key;
    listening = next.notifications !== undefined;
    body.dataset.journalListening = String(listening);
    show(next);
    if ((seenBefore !== null && next.key !== seenBefore) || owed) {
      await redraw().catch(e => annolink.showError(annolink.describe(e)));
    }
  }

  // The next poll a second after the last one began: at once after an answer the server
  // held (a notification came, or its 20 s ran out), every second when it answers at once.
  (async function loop() {
    const began = Date.now();
    await poll();
    setTimeout(loop, Math.max(0, POLL_MS - (Date.now() - began)));
  })();
  document.addEventListener('visibilitychange', () => { if (!document.hidden) poll(); });

  // The page's own edits: the core draws the view again when one succeeds, so the key
  // after it is adopted (annolink.afterEdit, awaited before the core's refresh) and the poll
  // does not draw the same view a second time. A failed read of the journal adopts nothing
  // (the poll then draws as for any other change).
  annolink.afterEdit.push(async () => {
    if (stepping) return;
    try {
      const next = await journal('');
      epoch++;
      known = next.key;
      viewsAtAdoption = views();
      show(next);
    } catch (e) {
      // Not adopted: the next poll sees a new key and draws the view again.
    }
  });

  // Undo or redo through the server, as `annolink undo` and `annolink redo`: the refusals
  // are the command line's, shown in the page.
  async function step(which) {
    if (stepping) return;
    stepping = true;
    undoButton.disabled = redoButton.disabled = true;
    body.dataset.journalPending = '1';
    try {
      const answer = await journal('/' + which, 'POST');
      const entry = answer.undone || answer.redone;
      epoch++;
      known = answer.journal.key;
      stepping = false;
      show(answer.journal);
      annolink.message((which === 'undo' ? 'undid ' : 'redid ') + '#' + entry.id + ': ' + entry.summary + ' (' + entry.rows + ' rows)');
      await redraw();
    } catch (e) {
      annolink.showError(annolink.describe(e));
    } finally {
      stepping = false;
      if (state) show(state);
      body.dataset.journalPending = '0';
    }
  }
  undoButton.onclick = () => step('undo');
  redoButton.onclick = () => step('redo');
  // While a sketch is open its own Undo and Redo are the ones in view (the sketch module
  // says so with 'annolink:sketch'): the journal's are put away, and offered again after.
  document.addEventListener('annolink:sketch', ev => {
    undoButton.hidden = redoButton.hidden = ev.detail.open;
    body.dataset.journalButtons = ev.detail.open ? 'hidden' : 'shown';
  });
  // Ctrl+Z / Ctrl+Shift+Z (Ctrl+Y), except while typing in a field, where they undo the typing.
  document.addEventListener('keydown', ev => {
    if (!(ev.ctrlKey || ev.metaKey) || ev.altKey || annolink.sketchOpen) return;
    if (ev.target && (ev.target.tagName === 'INPUT' || ev.target.tagName === 'TEXTAREA' || ev.target.isContentEditable)) return;
    const key = ev.key.toLowerCase();
    if (key === 'z' && !ev.shiftKey && !undoButton.disabled) { ev.preventDefault(); step('undo'); }
    else if (((key === 'z' && ev.shiftKey) || key === 'y') && !redoButton.disabled) { ev.preventDefault(); step('redo'); }
  });
});