/* uno-env: cards and the table in the browser, and the replay viewer (window.UnoTable).
 *
 * It only draws: what a seat may see is decided in Python by `uno_env.render.table_view`, whose views this
 * draws as they are (a hand of null is drawn as card backs, a forehead card of null as a back marked "?"); a
 * replay's views come as each view's changes from its previous one, put back together here as they are.
 * Names from the data are looked up as own properties only (`own`), never through Object.prototype.
 * Data is put on the page with textContent only, never as HTML. Needs table.css, and the card faces and colours of
 * uno_env.faces in the page before this script (uno_env.faces.faces_element); no library, nothing fetched.
 *
 *   UnoTable.card(code, colors, {size: "small" | "large"})  -> element: a face-up card ("R5", "B+2", "W+4", ...)
 *   UnoTable.back(colors, {mark, size})                      -> element: a face-down card ("?" for an unknown one)
 *   UnoTable.chip(colorName)                                 -> element: a colour dot
 *   UnoTable.table(view, colors, {seats, chosen})            -> element: a whole table_view
 *   UnoTable.mountReplay(container, data, {keys, hash})      -> the replay viewer (data from uno_env.replay)
 */
(function (root) {
  "use strict";

  var FACES = readFaces();
  var MAX_BACKS = 24; // a hidden hand is drawn as at most this many backs, then "+k"

  /* Whether `key` is an own property of `object` (not "constructor", "__proto__", ... from its prototype). */
  function own(object, key) {
    return object !== null && typeof object === "object" && Object.prototype.hasOwnProperty.call(object, key);
  }

  /* The one table of card faces and colours (uno_env.faces), from the page's JSON element uno-faces: {ranks, wilds}
     as faces by code ({code, name, mark, word}) and {colors} by name ({rgb, style}). Each colour's RGB becomes
     the CSS variable --uno-NAME of the document (--uno-wild: a wild card's black), which table.css reads. */
  function readFaces() {
    var node = document.getElementById("uno-faces");
    if (!node) throw new Error("table.js needs the card faces in the page before it: uno_env.faces.faces_element()");
    var data = JSON.parse(node.textContent);
    var faces = { ranks: {}, wilds: {}, colors: data.colors };
    data.ranks.forEach(function (face) { faces.ranks[face.code] = face; });
    data.wilds.forEach(function (face) { faces.wilds[face.code] = face; });
    var style = document.documentElement.style;
    for (var name in data.colors) {
      if (own(data.colors, name)) style.setProperty("--uno-" + name, cssColor(data.colors[name].rgb));
    }
    style.setProperty("--uno-wild", cssColor(data.wild.rgb));
    return faces;
  }

  function cssColor(rgb) {
    return "rgb(" + rgb.join(", ") + ")";
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  /* Colour `node` (a card or a colour dot) `name`: the class uno-card-NAME and its --uno-card-color; a name not in
     the table, or null: a wild card's black (uno-card-wild). */
  function paint(node, name) {
    if (!own(FACES.colors, name)) {
      node.classList.add("uno-card-wild");
      return;
    }
    node.classList.add("uno-card-" + name);
    node.style.setProperty("--uno-card-color", "var(--uno-" + name + ")");
  }

  function setPresetColors(node, colors) {
    for (var i = 0; i < 4 && colors && i < colors.length; i++) {
      if (own(FACES.colors, colors[i])) node.style.setProperty("--uno-c" + i, "var(--uno-" + colors[i] + ")");
    }
  }

  /* {color: a colour name or null (a wild), rank: "5" / "S" / "W+4" ..., mark, word} of a card code. */
  function cardInfo(code, colors) {
    code = String(code).toUpperCase();
    if (own(FACES.wilds, code)) {
      return { color: null, rank: code, mark: FACES.wilds[code].mark, word: FACES.wilds[code].word };
    }
    var letter = code.charAt(0);
    var rank = code.slice(1);
    var color = null;
    for (var i = 0; i < colors.length; i++) {
      if (colors[i].charAt(0).toUpperCase() === letter) color = colors[i];
    }
    return {
      color: color,
      rank: rank,
      mark: own(FACES.ranks, rank) ? FACES.ranks[rank].mark : rank,
      word: own(FACES.ranks, rank) ? FACES.ranks[rank].word : "",
    };
  }

  function card(code, colors, options) {
    options = options || {};
    var info = cardInfo(code, colors);
    var node = el("span", "uno-card");
    paint(node, info.color);
    if (options.size) node.classList.add("uno-" + options.size);
    if (!info.color) setPresetColors(node, colors);
    node.title = String(code);
    node.setAttribute("data-code", String(code));
    node.appendChild(el("span", "uno-oval"));
    var mark = el("span", "uno-rank" + (info.mark.length > 1 ? " uno-long" : ""), info.mark);
    node.appendChild(mark);
    node.appendChild(el("span", "uno-corner", info.rank));
    if (info.word) node.appendChild(el("span", "uno-word", info.word));
    return node;
  }

  function back(colors, options) {
    options = options || {};
    var mark = options.mark || "UNO";
    var node = el("span", "uno-card uno-back" + (mark === "?" ? " uno-unknown" : ""));
    if (options.size) node.classList.add("uno-" + options.size);
    setPresetColors(node, colors);
    node.title = mark === "?" ? "a card it cannot see" : "a hidden card";
    node.appendChild(el("span", "uno-oval"));
    node.appendChild(el("span", "uno-rank", mark));
    return node;
  }

  function chip(name) {
    var node = el("span", "uno-chip");
    paint(node, name);
    node.title = String(name);
    return node;
  }

  function seatLabel(seat, seats) {
    var info = seats && seats[seat.seat];
    var label = seat.name;
    if (info && info.agent) label += " (" + info.agent + ")";
    return label;
  }

  /* A table_view as an element: the middle of the table, then one panel per seat. options.seats: [{agent}] per
     seat; options.chosen: the action name about to be taken (its card is outlined in the deciding hand). */
  function table(view, colors, options) {
    options = options || {};
    var node = el("div", "uno-table");
    var center = el("div", "uno-center");
    if (view.top) {
      var topBox = el("div", "uno-pile");
      topBox.appendChild(card(view.top, colors, { size: "large" }));
      topBox.appendChild(el("span", "", "top"));
      center.appendChild(topBox);
    }
    var pileBox = el("div", "uno-pile");
    pileBox.appendChild(back(colors, { size: "large" }));
    pileBox.appendChild(el("span", "", "draw pile " + view.pile));
    center.appendChild(pileBox);
    var facts = el("div", "uno-facts");
    var colorLine = el("div", "", "");
    if (view.color) {
      colorLine.appendChild(chip(view.color));
      colorLine.appendChild(document.createTextNode("colour " + view.color));
    } else {
      colorLine.textContent = "colour (to choose)";
    }
    facts.appendChild(colorLine);
    facts.appendChild(el("div", "", view.direction === 1 ? "direction \u21bb left (+1)" : "direction \u21ba right (-1)"));
    facts.appendChild(el("div", "", "round " + view.round + (view.done ? "" : " \u00b7 phase " + view.phase)));
    if (view.pending_draw) facts.appendChild(el("div", "uno-pending", "pending draw +" + view.pending_draw));
    center.appendChild(facts);
    node.appendChild(center);

    var seatsNode = el("div", "uno-seats");
    for (var i = 0; i < view.seats.length; i++) {
      var seat = view.seats[i];
      var panel = el("div", "uno-seat");
      if (seat.you) panel.classList.add("uno-you");
      if (seat.deciding) panel.classList.add("uno-deciding");
      if (seat.winner) panel.classList.add("uno-winner");
      var head = el("div", "uno-seat-head");
      var name = el("span", "uno-seat-name", seatLabel(seat, options.seats));
      name.title = name.textContent;
      head.appendChild(name);
      var badges = el("span", "uno-badges");
      if (seat.you) badges.appendChild(el("span", "uno-badge", "you"));
      if (seat.deciding) badges.appendChild(el("span", "uno-badge uno-turn", "to decide"));
      if (seat.winner) badges.appendChild(el("span", "uno-badge uno-win", "winner"));
      head.appendChild(badges);
      head.appendChild(el("span", "uno-seat-score", seat.count + " cards \u00b7 score " + seat.score));
      panel.appendChild(head);
      var hand = el("div", "uno-hand");
      if (seat.hand) {
        var chosenCode = null;
        if (seat.deciding && options.chosen && /^play /.test(options.chosen)) chosenCode = options.chosen.slice(5);
        for (var j = 0; j < seat.hand.length; j++) {
          var face = card(seat.hand[j], colors, { size: "small" });
          if (chosenCode !== null && seat.hand[j] === chosenCode) {
            face.classList.add("uno-chosen");
            chosenCode = null;
          }
          hand.appendChild(face);
        }
        if (!seat.hand.length) hand.appendChild(el("span", "uno-more", "no cards"));
      } else {
        for (var k = 0; k < Math.min(seat.count, MAX_BACKS); k++) hand.appendChild(back(colors, { size: "small" }));
        if (seat.count > MAX_BACKS) hand.appendChild(el("span", "uno-more", "+" + (seat.count - MAX_BACKS)));
        if (!seat.count) hand.appendChild(el("span", "uno-more", "no cards"));
      }
      panel.appendChild(hand);
      if (seat.foreheads && seat.foreheads.length) {
        var fore = el("div", "uno-foreheads", "forehead ");
        for (var f = 0; f < seat.foreheads.length; f++) {
          var code = seat.foreheads[f];
          fore.appendChild(code === null ? back(colors, { mark: "?", size: "small" }) : card(code, colors, { size: "small" }));
        }
        panel.appendChild(fore);
      }
      seatsNode.appendChild(panel);
    }
    node.appendChild(seatsNode);
    if (view.legal) node.appendChild(el("div", "uno-legal", "legal: " + view.legal.join(", ")));
    return node;
  }

  function who(data, seat) {
    var info = data.seats[seat];
    return "player_" + seat + (info && info.agent ? " (" + info.agent + ")" : "");
  }

  function resultText(data) {
    var r = data.result;
    if (!r) return "";
    if (!r.done) return "The record ends before the game does (scores " + r.scores.join(", ") + ").";
    if (r.truncated) return "Cut off at the step limit (scores " + r.scores.join(", ") + ").";
    var names = r.winners.map(function (w) { return who(data, w); });
    return (names.join(", ") || "nobody") + (r.winners.length === 1 ? " wins" : " win") +
      " \u00b7 scores " + r.scores.join(", ");
  }

  var JOINED = { hand: true, legal: true }; // lists of names sent as one string joined by "|"

  function unpack(fields, into) {
    for (var key in fields) {
      if (!own(fields, key) || key === "seats") continue;
      var value = fields[key];
      into[key] = own(JOINED, key) && typeof value === "string" ? (value ? value.split("|") : []) : value;
    }
    return into;
  }

  /* A table_view from the previous one and the changes to it (uno_env.replay's `changes`: the changed fields, and
     under `seats` the changed fields of each changed seat by its index; a hand or the legal actions as one string
     joined by "|"; a seat's `deciding` is the view's). */
  function applyChanges(before, changes) {
    var view = unpack(changes, before ? unpack(before, {}) : {});
    var seats = before ? before.seats.slice() : [];
    if (!before) {
      for (var s = 0; s < changes.seats.length; s++) seats.push(unpack(changes.seats[s], {}));
    } else if (own(changes, "seats")) {
      for (var key in changes.seats) {
        if (own(changes.seats, key)) seats[Number(key)] = unpack(changes.seats[key], unpack(before.seats[Number(key)], {}));
      }
    }
    view.seats = [];
    for (var i = 0; i < seats.length; i++) {
      var seat = unpack(seats[i], {});
      seat.deciding = seat.seat === view.deciding;
      view.seats.push(seat);
    }
    return view;
  }

  /* The replay viewer in `container`: data = {title, colors, seats, viewers: [{key, label}], moves: [{action, by,
     phase, details, chosen}], changes: [table changes], views: {key: {steps: [move index], tables: [change index],
     skipped: [decision index]}}, result}: each view's own moments, as uno_env.replay made them. Buttons, a
     slider, the keys (arrows, Home, End, space) and the move list (click a move) step through them; options.keys:
     where to listen for the keys (default: the viewer itself, once focused); options.hash: follow the page
     address's #step=N&view=KEY (N: the view's own moment), when the page opens and whenever it changes
     (hashchange), and keep it up to date. */
  function mountReplay(container, data, options) {
    options = options || {};
    var colors = data.colors;
    var tables = {}; // key -> the view's tables, put back together when first shown
    var state = { step: 0, viewer: data.viewers[0].key, timer: null };
    function views(key) { return data.views[key]; }
    function tablesOf(key) {
      if (!own(tables, key)) {
        var refs = views(key).tables;
        var out = [];
        for (var i = 0; i < refs.length; i++) out.push(applyChanges(i ? out[i - 1] : null, data.changes[refs[i]]));
        tables[key] = out;
      }
      return tables[key];
    }
    function stepOf(key, index) { return data.moves[views(key).steps[index]]; }
    /* The decision index of each moment of view `key` (the decisions less those it has no moment of). */
    function decisionsOf(key) {
      var skipped = views(key).skipped || [];
      var out = [];
      var s = 0;
      for (var d = 0; out.length < views(key).steps.length; d++) {
        if (s < skipped.length && skipped[s] === d) s++;
        else out.push(d);
      }
      return out;
    }
    function last() { return views(state.viewer).steps.length - 1; }
    var rootNode = el("div", "uno-root uno-replay");
    rootNode.tabIndex = 0;
    rootNode.appendChild(el("div", "uno-title", data.title));
    var controls = el("div", "uno-controls");
    function button(label, title, onClick) {
      var b = el("button", "", label);
      b.type = "button";
      b.title = title;
      b.addEventListener("click", onClick);
      controls.appendChild(b);
      return b;
    }
    var first = button("|\u25c0", "first (Home)", function () { show(0); });
    var prev = button("\u25c0", "previous (\u2190)", function () { show(state.step - 1); });
    var play = button("\u25b6 play", "play / pause (space)", toggle);
    var next = button("\u25b6", "next (\u2192)", function () { show(state.step + 1); });
    var end = button("\u25b6|", "last (End)", function () { show(last()); });
    var slider = el("input");
    slider.type = "range";
    slider.min = "0";
    slider.value = "0";
    slider.setAttribute("aria-label", "decision");
    slider.addEventListener("input", function () { show(parseInt(slider.value, 10)); });
    controls.appendChild(slider);
    var counter = el("span", "uno-step");
    controls.appendChild(counter);
    var select = el("select");
    select.setAttribute("aria-label", "whose view");
    for (var i = 0; i < data.viewers.length; i++) {
      var option = el("option", "", data.viewers[i].label);
      option.value = data.viewers[i].key;
      select.appendChild(option);
    }
    select.addEventListener("change", function () { choose(select.value); });
    controls.appendChild(select);
    rootNode.appendChild(controls);
    var action = el("div", "uno-action");
    rootNode.appendChild(action);
    var body = el("div", "uno-replay-body");
    var main = el("div", "uno-replay-main");
    var board = el("div");
    main.appendChild(board);
    var details = el("div", "uno-details");
    main.appendChild(details);
    var result = el("div", "uno-result");
    main.appendChild(result);
    body.appendChild(main);
    // The moves of the view shown, one button each (a click shows that moment); rebuilt when the view changes.
    var moveList = el("ol", "uno-moves");
    moveList.setAttribute("aria-label", "moves");
    moveList.start = 0;
    var movesKey = null;
    body.appendChild(moveList);
    rootNode.appendChild(body);
    rootNode.appendChild(el("div", "uno-hint",
      "\u2190 \u2192 step, Home / End, space plays; click a move to jump to it; the menu picks whose view."));
    container.appendChild(rootNode);

    /* Show view `key`, at its last moment at or before the decision now shown (its own moments differ). */
    function choose(key) {
      if (!own(data.views, key)) return;
      var decision = decisionsOf(state.viewer)[state.step];
      state.viewer = key;
      select.value = key;
      var target = decisionsOf(key);
      var index = 0;
      while (index + 1 < target.length && target[index + 1] <= decision) index++;
      show(index);
    }

    function toggle() {
      if (state.timer) {
        clearInterval(state.timer);
        state.timer = null;
      } else {
        if (state.step >= last()) show(0);
        state.timer = setInterval(function () {
          if (state.step >= last()) toggle();
          else show(state.step + 1);
        }, 700);
      }
      play.textContent = state.timer ? "\u23f8 pause" : "\u25b6 play";
    }

    /* A move's line in the move list: "player_1 (agent): play R5", or "the deal". */
    function moveText(step) {
      if (step.action === undefined || step.action === null) return "the deal";
      return who(data, step.by) + ": " + step.action;
    }

    function buildMoves() {
      moveList.textContent = "";
      movesKey = state.viewer;
      var count = views(state.viewer).steps.length;
      for (var m = 0; m < count; m++) {
        var item = el("li", "uno-move");
        var jump = el("button", "", moveText(stepOf(state.viewer, m)));
        jump.type = "button";
        jump.setAttribute("data-step", String(m));
        jump.addEventListener("click", (function (target) { return function () { show(target); }; })(m));
        item.appendChild(jump);
        moveList.appendChild(item);
      }
    }

    /* Mark the move shown, and scroll the list (only the list, not the page) to keep it in sight. */
    function markMove(index) {
      if (movesKey !== state.viewer) buildMoves();
      var items = moveList.children;
      for (var m = 0; m < items.length; m++) {
        var current = m === index;
        items[m].classList.toggle("uno-current", current);
        if (current) items[m].setAttribute("aria-current", "step");
        else items[m].removeAttribute("aria-current");
      }
      var item = items[index];
      if (item && moveList.clientHeight) {
        var top = item.offsetTop - moveList.offsetTop;
        if (top < moveList.scrollTop) moveList.scrollTop = top;
        else if (top + item.offsetHeight > moveList.scrollTop + moveList.clientHeight) {
          moveList.scrollTop = top + item.offsetHeight - moveList.clientHeight;
        }
      }
    }

    function describeAction(step) {
      action.textContent = "";
      if (step.action === undefined || step.action === null) {
        action.textContent = "The deal.";
        return;
      }
      action.appendChild(document.createTextNode("Decision " + state.step + ": " + who(data, step.by) + " \u2192 "));
      if (/^play [^,]+$/.test(step.action)) {
        action.appendChild(document.createTextNode("play"));
        action.appendChild(card(step.action.slice(5), colors, { size: "small" }));
      } else {
        action.appendChild(document.createTextNode(step.action));
      }
      action.appendChild(el("span", "uno-hint", " (phase " + step.phase + ")"));
    }

    function show(index) {
      var lastIndex = last();
      index = Math.max(0, Math.min(lastIndex, index | 0));
      state.step = index;
      var step = stepOf(state.viewer, index);
      var view = tablesOf(state.viewer)[index];
      slider.max = String(lastIndex);
      slider.value = String(index);
      counter.textContent = "decision " + index + " / " + lastIndex;
      first.disabled = prev.disabled = index === 0;
      next.disabled = end.disabled = index === lastIndex;
      describeAction(step);
      board.textContent = "";
      board.appendChild(table(view, colors, { seats: data.seats, chosen: step.chosen || null }));
      // A decision's details (e.g. an agent's probabilities) come only in its own seat's and the spectator's view.
      details.textContent = step.details ? "details: " + JSON.stringify(step.details) : "";
      result.textContent = index === lastIndex ? resultText(data) : "";
      markMove(index);
      if (options.hash && typeof history !== "undefined" && history.replaceState) {
        try {
          history.replaceState(null, "", "#step=" + index + "&view=" + encodeURIComponent(state.viewer));
        } catch (error) { /* a sandboxed or srcdoc page may not change its address */ }
      }
    }

    var moves = { ArrowLeft: -1, ArrowRight: 1 };
    (options.keys || rootNode).addEventListener("keydown", function (event) {
      if (event.target === select || event.target === slider) return; // they handle their own keys
      if (event.key === " " && event.target && event.target.tagName === "BUTTON") return; // a click already
      if (own(moves, event.key)) show(state.step + moves[event.key]);
      else if (event.key === "Home") show(0);
      else if (event.key === "End") show(last());
      else if (event.key === " ") toggle();
      else return;
      event.preventDefault();
    });
    /* The moment the address names (#step=N&view=KEY), when the page opens and whenever the address changes. */
    function followHash() {
      var match = /step=(\d+)/.exec(location.hash);
      var seen = /view=([\w]+)/.exec(location.hash);
      if (seen && own(data.views, seen[1])) {
        state.viewer = seen[1];
        select.value = seen[1];
      }
      show(match ? parseInt(match[1], 10) : state.step);
    }
    if (options.hash && typeof location !== "undefined") {
      followHash();
      if (typeof window !== "undefined" && window.addEventListener) window.addEventListener("hashchange", followHash);
    } else {
      show(0);
    }
    return { show: show, choose: choose, root: rootNode, state: state };
  }

  root.UnoTable = {
    version: 1,
    cardInfo: cardInfo,
    card: card,
    back: back,
    chip: chip,
    table: table,
    mountReplay: mountReplay,
  };
})(typeof window !== "undefined" ? window : this);
