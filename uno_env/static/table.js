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
  var MAX_BACKS = 12; // a hidden hand is drawn as at most this many backs, then "+k"

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

  /* A seat's name at the table: "Player 2 (counter)"; options.names (one per seat) wins when given. */
  function seatName(seat, options) {
    if (options.names && options.names[seat.seat]) return options.names[seat.seat];
    var info = options.seats && options.seats[seat.seat];
    return "Player " + seat.seat + (info && info.agent ? " (" + info.agent + ")" : "");
  }

  function mini(code, colors) {
    var node = card(code, colors, { size: "small" });
    node.classList.add("uno-mini");
    return node;
  }

  function miniBack(colors, mark) {
    var node = back(colors, { size: "small", mark: mark });
    node.classList.add("uno-mini");
    return node;
  }

  /* Where seat k of n (0: the viewer's) sits on the oval: the viewer at the bottom, then to its left, round the
     table (clockwise on the screen). The stylesheet turns --uno-cos and --uno-sin into a place (table.css). */
  function seatPlace(node, k, n) {
    var angle = Math.PI / 2 + (2 * Math.PI * k) / n;
    node.style.setProperty("--uno-cos", Math.cos(angle).toFixed(4));
    node.style.setProperty("--uno-sin", Math.sin(angle).toFixed(4));
  }

  /* One seat's place: its name, cards and points, its hand as backs (hidden), face up (seen, or laid down at the
     end: `revealed`), or not at all (`handElsewhere`: the page draws the viewer's hand below the table). */
  function seatBox(view, seat, colors, options) {
    var box = el("div", "uno-seat");
    box.setAttribute("data-seat", String(seat.seat));
    if (seat.you) box.classList.add("uno-you");
    if (seat.deciding) box.classList.add("uno-deciding");
    if (seat.winner && view.done) box.classList.add("uno-winner");
    if (options.actor === seat.seat) box.classList.add("uno-acting");
    if (options.played && options.played.seat === seat.seat) box.classList.add("uno-last-player");
    var head = el("div", "uno-seat-head");
    var name = el("span", "uno-seat-name", seatName(seat, options));
    name.title = name.textContent;
    head.appendChild(name);
    var mark = seat.winner && view.done ? "winner" : seat.deciding ? "to play" : "";
    if (mark) head.appendChild(el("span", "uno-badge", mark));
    box.appendChild(head);
    var points = seat.score === 1 ? "1 point" : seat.score + " points";
    box.appendChild(el("div", "uno-seat-facts", seat.count + (seat.count === 1 ? " card" : " cards") + " \u00b7 " +
      points));
    var revealed = options.reveal ? options.reveal[seat.seat] : null;
    var hand = revealed ? revealed.hand : seat.hand;
    var elsewhere = seat.you && options.handElsewhere; // the page draws this hand below the table
    var cards = el("div", "uno-seat-cards");
    if (elsewhere) {
      cards = null;
    } else if (hand) {
      cards.classList.add("uno-revealed");
      var chosen = null;
      if (seat.deciding && options.chosen && /^play /.test(options.chosen)) chosen = options.chosen.slice(5);
      hand.forEach(function (code) {
        var face = mini(code, colors);
        if (chosen !== null && code === chosen) {
          face.classList.add("uno-chosen");
          chosen = null;
        }
        cards.appendChild(face);
      });
      if (!hand.length) cards.appendChild(el("span", "uno-more", "no cards"));
      box.appendChild(cards);
    } else {
      for (var i = 0; i < Math.min(seat.count, MAX_BACKS); i++) cards.appendChild(miniBack(colors));
      if (seat.count > MAX_BACKS) cards.appendChild(el("span", "uno-more", "+" + (seat.count - MAX_BACKS)));
      if (!seat.count) cards.appendChild(el("span", "uno-more", "no cards"));
      box.appendChild(cards);
    }
    var foreheads = revealed ? revealed.foreheads : seat.foreheads;
    if (foreheads && foreheads.length && !(elsewhere && !revealed)) {
      var fore = el("div", "uno-seat-fore", "forehead ");
      foreheads.forEach(function (code) {
        fore.appendChild(code === null ? miniBack(colors, "?") : mini(code, colors));
      });
      box.appendChild(fore);
    }
    if (revealed) {
      box.appendChild(el("div", "uno-hand-worth", "cards worth " + revealed.points));
    }
    return box;
  }

  /* The middle of the table: the draw pile, the top card (who played it under it), the colour to match (all four
     while a colour is being chosen), the direction of play and a Draw Two stack waiting. */
  function middle(view, colors, options) {
    var node = el("div", "uno-middle");
    var pile = el("div", "uno-pile uno-draw-pile");
    pile.appendChild(back(colors, { size: "large" }));
    pile.appendChild(el("span", "uno-caption", "draw pile " + view.pile));
    node.appendChild(pile);
    var top = el("div", "uno-pile uno-top");
    if (view.top) top.appendChild(card(view.top, colors, { size: "large" }));
    var played = options.played;
    var by = el("span", "uno-caption uno-played-by");
    if (played && played.card === view.top) {
      var player = view.seats[played.seat];
      by.textContent = "played by " + (player && player.you && options.handElsewhere ? "you" :
        seatName(player || { seat: played.seat }, options));
      by.setAttribute("data-seat", String(played.seat));
    } else if (played === undefined && view.top) {
      by.textContent = "top card";
    } else {
      by.textContent = "the first card";
    }
    by.title = by.textContent;
    top.appendChild(by);
    node.appendChild(top);
    var facts = el("div", "uno-facts");
    var colour = el("div", "uno-fact uno-colour");
    if (view.phase === "color" && !view.done) {
      var all = el("span", "uno-chip uno-card-wild uno-choosing");
      setPresetColors(all, colors);
      colour.appendChild(all);
      colour.appendChild(document.createTextNode("colour being chosen"));
      colour.setAttribute("data-colour", "");
    } else if (view.color) {
      colour.appendChild(chip(view.color));
      colour.appendChild(document.createTextNode(view.color));
      colour.setAttribute("data-colour", view.color);
    } else {
      colour.textContent = "colour to choose";
      colour.setAttribute("data-colour", "");
    }
    facts.appendChild(colour);
    facts.appendChild(el("div", "uno-fact uno-direction", view.direction === 1 ? "\u21bb to the left" :
      "\u21ba to the right"));
    if (view.pending_draw) facts.appendChild(el("div", "uno-fact uno-pending", "+" + view.pending_draw + " to draw"));
    facts.appendChild(el("div", "uno-fact uno-dim", "round " + view.round));
    node.appendChild(facts);
    return node;
  }

  /* A table_view as the card table: an oval with the seats round it in turn order, the viewer (a spectator:
     seat 0) at the bottom and the next seat to its left, and the piles and the colour in the middle. options:
     names (a name per seat) or seats ([{agent}] per seat: "Player 2 (agent)"); played ({seat, card}: the top
     card's player); actor (the seat that just decided, lit); reveal (per seat {hand, foreheads, points}: the
     hands laid down face up at a round's end); handElsewhere (the viewer's hand is drawn by the page below the
     table, not in its seat); chosen (the action name about to be taken: its card is outlined). */
  function table(view, colors, options) {
    options = options || {};
    var node = el("div", "uno-table");
    node.setAttribute("data-players", String(view.seats.length));
    node.style.setProperty("--uno-players", String(view.seats.length));
    node.appendChild(el("div", "uno-felt"));
    var n = view.seats.length;
    var anchor = view.viewer === null || view.viewer === undefined ? 0 : view.viewer;
    for (var k = 0; k < n; k++) {
      var box = seatBox(view, view.seats[(anchor + k) % n], colors, options);
      seatPlace(box, k, n);
      node.appendChild(box);
    }
    node.appendChild(middle(view, colors, options));
    return node;
  }

  function who(data, seat) {
    var info = data.seats[seat];
    return "Player " + seat + (info && info.agent ? " (" + info.agent + ")" : "");
  }

  function resultText(data) {
    var r = data.result;
    if (!r) return "";
    if (!r.done) return "The record ends before the game does (points " + r.scores.join(", ") + ").";
    if (r.truncated) return "Cut off at the step limit (points " + r.scores.join(", ") + ").";
    var names = r.winners.map(function (w) { return who(data, w); });
    return (names.join(", ") || "nobody") + (r.winners.length === 1 ? " wins" : " win") +
      " \u00b7 points " + r.scores.join(", ");
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

  /* The card code a step's action played ("play R5", or "draw, then play R5"), or null. */
  function playedCard(action) {
    var match = /(?:^|, then )play (\S+)$/.exec(action || "");
    return match ? match[1] : null;
  }

  /* A decision's details in `node`: a text agent's exchange with its model as a conversation (the prompt, each
     reply and what it was read as, the fallback if any), anything else as its fields. */
  function showDetails(node, step, data) {
    node.textContent = "";
    var details = step.details;
    if (!details) return;
    var text = own(details, "text") ? details.text : null;
    if (!text || typeof text.prompt !== "string" || !Array.isArray(text.attempts)) {
      var plain = el("div", "uno-details-fields");
      for (var key in details) {
        if (own(details, key)) plain.appendChild(el("div", "", key + ": " + JSON.stringify(details[key])));
      }
      node.appendChild(plain);
      return;
    }
    var talk = el("div", "uno-conversation");
    var asked = el("details", "uno-message uno-prompt");
    asked.appendChild(el("summary", "uno-speaker", "Prompt to " + who(data, step.by)));
    asked.appendChild(el("pre", "uno-message-text", text.prompt));
    talk.appendChild(asked);
    text.attempts.forEach(function (attempt, i) {
      var reply = el("div", "uno-message uno-reply");
      reply.appendChild(el("div", "uno-speaker", "Reply" + (text.attempts.length > 1 ? " " + (i + 1) : "")));
      reply.appendChild(el("pre", "uno-message-text", attempt.reply));
      var read = attempt.error ? "not accepted: " + attempt.error : "accepted: " + step.action;
      reply.appendChild(el("div", attempt.error ? "uno-read uno-refused" : "uno-read", read));
      talk.appendChild(reply);
    });
    if (!text.attempts.length) talk.appendChild(el("div", "uno-read", "not asked: one legal move"));
    if (text.fallback) {
      talk.appendChild(el("div", "uno-read uno-refused", "no legal move named: it played its fallback"));
    }
    node.appendChild(talk);
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
      return step.says || who(data, step.by) + ": " + step.action;
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

    /* The step just taken, said as the live table says it, its card drawn: "Decision 3: Player 1 (counter) plays
       [R5]". */
    function describeAction(step) {
      action.textContent = "";
      if (step.action === undefined || step.action === null) {
        action.textContent = "The deal.";
        return;
      }
      action.appendChild(document.createTextNode("Decision " + state.step + ": "));
      var says = moveText(step);
      var played = playedCard(step.action);
      if (played && says.slice(-played.length) === played) {
        action.appendChild(document.createTextNode(says.slice(0, -played.length)));
        action.appendChild(card(played, colors, { size: "small" }));
      } else {
        action.appendChild(document.createTextNode(says));
      }
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
      var played = playedCard(step.action);
      board.appendChild(table(view, colors, { seats: data.seats, chosen: step.chosen || null,
        played: played && played === view.top ? { seat: step.by, card: played } : undefined }));
      // A decision's details (e.g. an agent's probabilities) come only in its own seat's and the spectator's view.
      showDetails(details, step, data);
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
