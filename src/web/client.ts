/**
 * The page's one script (inline, under the response's nonce). Everything works without it; it adds the pop-up
 * sign-in, live events, the trigger form's per-kind fields, copying the MCP endpoint, dismissing messages and
 * keeping "3 minutes ago" current. Text from the server is only ever set with textContent.
 */
export const SCRIPT = `
(function () {
  'use strict';
  var $ = function (selector, root) { return (root || document).querySelector(selector); };
  var $$ = function (selector, root) { return Array.prototype.slice.call((root || document).querySelectorAll(selector)); };

  // A failed form post: its message takes the focus (autofocus does too; this also covers a restored scroll).
  var failed = $('[data-focus]');
  if (failed) failed.focus();

  // Messages stay until dismissed.
  $$('[data-dismiss]').forEach(function (b) { b.hidden = false; });
  document.addEventListener('click', function (event) {
    var button = event.target.closest && event.target.closest('[data-dismiss]');
    if (!button) return;
    var notice = button.closest('.notice');
    if (notice) notice.hidden = true;
    $('#main').focus();
  });

  function showNotice(box, ok, text) {
    box.textContent = '';
    box.className = 'notice ' + (ok ? 'ok' : 'error');
    var p = document.createElement('p');
    p.textContent = text;
    var dismiss = document.createElement('button');
    dismiss.type = 'button';
    dismiss.className = 'secondary';
    dismiss.setAttribute('data-dismiss', '');
    dismiss.textContent = 'Dismiss';
    var context = document.createElement('span');
    context.className = 'vh';
    context.textContent = ' the sign-in message';
    dismiss.appendChild(context);
    box.appendChild(p);
    box.appendChild(dismiss);
    box.hidden = false;
    box.scrollIntoView({ block: 'nearest' });
  }

  // Pop-up sign-in: the pop-up tells us (same origin only); on success the page reloads to list the account,
  // and the message survives the reload in this tab's sessionStorage.
  var SIGNED_IN = 'switchboard:signed-in';
  var signinBox = $('#signin-result');
  $$('form[data-popup]').forEach(function (form) {
    form.addEventListener('submit', function () { window.open('', form.target, 'popup,width=560,height=720'); });
  });
  window.addEventListener('message', function (event) {
    if (event.origin !== location.origin || !event.data || event.data.type !== SIGNED_IN) return;
    var text = String(event.data.message || '');
    if (!event.data.ok) return showNotice(signinBox, false, text);
    sessionStorage.setItem(SIGNED_IN, text);
    location.reload();
  });
  var signedIn = sessionStorage.getItem(SIGNED_IN);
  if (signedIn !== null && signinBox) {
    sessionStorage.removeItem(SIGNED_IN);
    showNotice(signinBox, true, signedIn);
  }

  // Relative times, with the server's rules (src/web/time.ts).
  var UNITS = [['year', 31536000], ['month', 2592000], ['week', 604800], ['day', 86400], ['hour', 3600], ['minute', 60]];
  var format = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
  function relative(iso) {
    var seconds = Math.round((Date.parse(iso) - Date.now()) / 1000);
    if (isNaN(seconds)) return iso;
    if (Math.abs(seconds) < 45) return 'just now';
    for (var i = 0; i < UNITS.length; i++) if (Math.abs(seconds) >= UNITS[i][1]) return format.format(Math.round(seconds / UNITS[i][1]), UNITS[i][0]);
    return format.format(Math.round(seconds / 60), 'minute');
  }
  function timeElement(iso, exact) {
    var t = document.createElement('time');
    t.dateTime = iso;
    t.title = exact;
    t.setAttribute('data-relative', '');
    t.textContent = relative(iso);
    return t;
  }
  setInterval(function () { $$('time[data-relative]').forEach(function (t) { t.textContent = relative(t.dateTime); }); }, 30000);

  // Copy the MCP endpoint.
  var copy = $('#copy-endpoint');
  if (copy) {
    copy.hidden = false;
    copy.addEventListener('click', function () {
      var input = $('#mcp-endpoint');
      var said = $('#copy-status');
      var done = function (ok) { said.textContent = ok ? 'Copied' : 'Press Ctrl+C to copy'; };
      input.select();
      if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(input.value).then(function () { done(true); }, function () { done(document.execCommand('copy')); });
      else done(document.execCommand('copy'));
    });
  }

  // The trigger form shows only the chosen kind's fields and its provider's accounts.
  var form = $('#trigger-form');
  if (form) {
    var kind = $('select[name=kind]', form);
    var account = $('select[name=account]', form);
    var apply = function () {
      var option = kind.options[kind.selectedIndex];
      var chosen = option.value;
      var connector = option.getAttribute('data-connector');
      var required = (option.getAttribute('data-required') || '').split(' ');
      var oneOf = (option.getAttribute('data-one-of') || '').split(' ');
      $('#kind-about').textContent = option.getAttribute('data-about');
      $$('[data-kinds]', form).forEach(function (field) {
        var on = field.getAttribute('data-kinds').split(' ').indexOf(chosen) >= 0;
        field.hidden = !on;
        $$('input, select, textarea', field).forEach(function (control) { control.disabled = !on; });
        var hint = $('.hint', field);
        if (hint && on) hint.textContent = JSON.parse(field.getAttribute('data-hints') || '{}')[chosen] || hint.getAttribute('data-default');
        var need = on && required.indexOf(field.getAttribute('data-name')) >= 0;
        var text = $('input[type=text], input[type=number]', field);
        if (text) text.required = need;
        var mark = $('.need', field);
        var inGroup = on && oneOf.indexOf(field.getAttribute('data-name')) >= 0;
        if (mark) mark.textContent = need ? ' (required)' : inGroup ? ' (' + option.getAttribute('data-one-of-text') + ')' : ' (optional)';
      });
      $$('fieldset[data-connector]', form).forEach(function (set) { set.hidden = set.disabled = set.getAttribute('data-connector') !== connector; });
      // In the kind's own order, in the document too, so the tab order matches what is seen.
      var grid = $('fieldset[data-connector="' + connector + '"] .form-grid', form);
      (option.getAttribute('data-fields') || '').split(' ').forEach(function (name) {
        $$('[data-name="' + name + '"]', grid).forEach(function (field) { if (!field.hidden) grid.appendChild(field); });
      });
      $$('optgroup[data-provider]', account).forEach(function (group) { group.hidden = group.disabled = group.getAttribute('data-provider') !== connector; });
      if (account.selectedOptions[0] && account.selectedOptions[0].parentNode.disabled) account.value = '';
      var none = $('#no-account');
      var hasAccount = !!$('optgroup[data-provider="' + connector + '"] option', account);
      none.hidden = hasAccount;
      $('#default-account').textContent = hasAccount ? "The provider's default account" : 'No account connected';
    };
    kind.addEventListener('change', apply);
    apply();
    // "Exactly one of" fields (GitHub's Repository and Organization) are checked before the form is sent.
    var groupInputs = function () {
      var option = kind.options[kind.selectedIndex];
      var names = (option.getAttribute('data-one-of') || '').split(' ').filter(Boolean);
      var grid = $('fieldset[data-connector="' + option.getAttribute('data-connector') + '"]', form);
      return names.map(function (name) { return $('[data-name="' + name + '"]:not([hidden]) input', grid); }).filter(Boolean);
    };
    form.addEventListener('input', function () { groupInputs().forEach(function (input) { input.setCustomValidity(''); }); });
    form.addEventListener('submit', function (event) {
      var inputs = groupInputs();
      if (!inputs.length) return;
      var filled = inputs.filter(function (input) { return input.value.trim() !== ''; }).length;
      if (filled === 1) return;
      var option = kind.options[kind.selectedIndex];
      var text = option.getAttribute('data-one-of-text');
      inputs[0].setCustomValidity('Give ' + text + (filled ? ', not both.' : '.'));
      inputs[0].reportValidity();
      event.preventDefault();
    });
  }

  // Live events: the server streams each new event of the log; the list and the trigger's counters follow.
  var list = $('#event-list');
  var live = $('#live-status');
  if (list && live && window.EventSource) {
    var source = new EventSource('/events/stream?after=' + encodeURIComponent(list.getAttribute('data-after')));
    source.addEventListener('open', function () { live.textContent = 'Live: new events appear here as they happen.'; live.classList.add('on'); });
    source.addEventListener('error', function () {
      live.textContent = source.readyState === EventSource.CLOSED ? 'Live updates stopped: reload the page.' : 'Reconnecting to the event stream…';
      live.classList.remove('on');
    });
    source.addEventListener('trigger-event', function (message) {
      var e = JSON.parse(message.data);
      if ($('[data-event="' + e.id + '"]', list)) return;
      var li = document.createElement('li');
      li.setAttribute('data-event', String(e.id));
      li.className = 'fresh';
      li.innerHTML = '<div class="when"></div><div><div class="title-line"><code class="kind"></code><span class="muted small">trigger <code class="trigger"></code></span></div><div class="summary"></div></div>';
      $('.when', li).appendChild(timeElement(e.occurredAt, e.occurredAtExact));
      $('.kind', li).textContent = e.kind;
      $('.trigger', li).textContent = e.triggerId;
      $('.summary', li).textContent = e.summary;
      if (e.test) {
        var badge = document.createElement('span');
        badge.className = 'badge test';
        badge.textContent = 'test';
        $('.title-line', li).insertBefore(badge, $('.title-line', li).children[1]);
      }
      list.insertBefore(li, list.firstChild);
      while (list.children.length > 50) list.removeChild(list.lastChild);
      var empty = $('#no-events');
      if (empty) empty.hidden = true;
      var row = $('[data-trigger="' + CSS.escape(e.triggerId) + '"]');
      if (row) {
        var fired = $('.fired', row);
        fired.textContent = String(Number(fired.textContent) + 1);
        var last = $('.last-event', row);
        last.textContent = '';
        last.appendChild(timeElement(e.receivedAt, e.receivedAtExact));
      }
    });
  }
})();
`;
