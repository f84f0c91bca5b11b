/* uno-web: the play page. It draws what the server sends (GET /api/state: the seat's table_view, its legal
 * actions, the narration, and since the seat's last decision the table after each step) and sends the id of the
 * action clicked (POST /api/act); the server decides everything. Cards are drawn by the shared UnoTable
 * (uno_env/static/table.js); the table is drawn here as an oval with the seats around it in turn order, as
 * uno_env/picture.py draws it (you at the bottom, the next seat to your left). Text goes on the page with
 * textContent only. Every POST carries the page's token (the meta uno-token the server put in the page) in the
 * X-Uno-Token header, and an action names its game (the server refuses one meant for another game).
 *
 * When an agent's model fails (`stalled`), the page says why and offers to ask it again or to let it play its
 * fallback move (POST /api/resume).
 *
 * Pacing: an answer to a POST holds `frames`, the table after each decision since yours; the page shows them one
 * at a time, `pace` seconds apart (the pace menu; 0 shows the last at once), then the decision. */
(function () {
  "use strict";

  var token = (document.querySelector('meta[name="uno-token"]') || {}).content || "";
  var current = null; // the last state drawn whole
  var busy = false;
  var rendered = 0;
  var framesShown = 0;
  var timer = null;
  var paceChosen = false; // the person changed the pace: keep it over the server's default
  var MAX_BACKS = 12; // another seat's hidden hand: at most this many backs, then the count says it

  function $(id) {
    return document.getElementById(id);
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function own(object, key) {
    return object !== null && typeof object === "object" && Object.prototype.hasOwnProperty.call(object, key);
  }

  function request(method, url, body) {
    var init = { method: method, headers: { Accept: "application/json" }, credentials: "same-origin" };
    if (method !== "GET") init.headers["X-Uno-Token"] = token;
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    return fetch(url, init).then(function (response) {
      return response.json().then(
        function (data) {
          if (!response.ok) throw new Error(data.error || response.status + " " + response.statusText);
          return data;
        },
        function () {
          throw new Error(response.status + " " + response.statusText);
        }
      );
    });
  }

  function showError(error) {
    var box = $("error");
    box.textContent = error ? String(error.message || error) : "";
    box.hidden = !error;
  }

  function setBusy(value) {
    busy = value;
    var buttons = document.querySelectorAll("#actions button, #hand .web-playable, #new-game, #start, #levels button");
    for (var i = 0; i < buttons.length; i++) buttons[i].disabled = value || buttons[i].hasAttribute("data-unavailable");
  }

  function pace() {
    var value = parseFloat($("pace").value);
    return isFinite(value) && value > 0 ? value : 0;
  }

  function stopAnimation() {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    document.body.setAttribute("data-animating", "false");
  }

  /* Show an answer: its frames one at a time, `pace` seconds apart, then the table as it is now. */
  function play(state) {
    stopAnimation();
    var frames = state.frames || [];
    var seconds = pace();
    if (!seconds || frames.length < 2) {
      render(state, null);
      return;
    }
    document.body.setAttribute("data-animating", "true");
    var index = 0;
    (function next() {
      if (index >= frames.length - 1) {
        timer = null;
        document.body.setAttribute("data-animating", "false");
        render(state, null);
        return;
      }
      render(state, frames[index]);
      index += 1;
      timer = setTimeout(next, seconds * 1000);
    })();
  }

  function send(method, url, body) {
    if (busy) return;
    stopAnimation();
    setBusy(true);
    request(method, url, body)
      .then(function (state) {
        showError(null);
        setBusy(false);
        play(state);
      })
      .catch(function (error) {
        showError(error);
        setBusy(false);
      });
  }

  function act(id) {
    send("POST", "/api/act", { action: id, game: current ? current.game.number : null });
  }

  function colorOfAction(name) {
    var match = /^color (\w+)$/.exec(name);
    return match ? match[1] : null;
  }

  function title(state) {
    var g = state.game;
    var text = "UNO " + g.variant + " \u00b7 " + g.players + " players \u00b7 " +
      (g.episode === "match" ? "a match to " + g.target_score : "a round") + " \u00b7 game " + g.number;
    if (g.options.length) text += " \u00b7 " + g.options.join(", ");
    return text;
  }

  function smallCard(code, colors) {
    var card = UnoTable.card(code, colors, { size: "small" });
    card.classList.add("web-mini");
    return card;
  }

  /* ------------------------------------------------------------------------------------------ the oval table */
  function seatPlace(node, k, n) {
    var angle = Math.PI / 2 + (2 * Math.PI * k) / n; // 0: you at the bottom; then to your left, round the table
    var cos = Math.cos(angle).toFixed(4);
    var sin = Math.sin(angle).toFixed(4);
    node.style.left = "calc(50% + (50% - 100px) * " + cos + ")";
    node.style.top = "calc(50% + (50% - 62px) * " + sin + ")";
  }

  function seatBox(state, view, seat, revealed, played, actor) {
    var box = el("div", "web-seat");
    box.setAttribute("data-seat", String(seat.seat));
    if (seat.deciding) box.classList.add("web-deciding");
    if (seat.winner && view.done) box.classList.add("web-winner");
    if (actor === seat.seat) box.classList.add("web-acting");
    var head = el("div", "web-seat-head");
    var name = el("span", "web-seat-name", state.names[seat.seat]);
    name.title = name.textContent;
    head.appendChild(name);
    var mark = seat.winner && view.done ? "winner" : seat.deciding ? "to decide" : "";
    if (mark) head.appendChild(el("span", "web-badge", mark));
    box.appendChild(head);
    box.appendChild(el("div", "web-seat-facts", seat.count + (seat.count === 1 ? " card" : " cards") +
      " \u00b7 score " + seat.score));
    var cards = el("div", "web-seat-cards");
    if (revealed) {
      cards.classList.add("web-revealed");
      revealed.hand.forEach(function (code) {
        cards.appendChild(smallCard(code, state.colors));
      });
      if (!revealed.hand.length) cards.appendChild(el("span", "web-hint", "no cards"));
    } else if (!seat.you) {
      for (var i = 0; i < Math.min(seat.count, MAX_BACKS); i++) {
        var back = UnoTable.back(state.colors, { size: "small" });
        back.classList.add("web-mini");
        cards.appendChild(back);
      }
      if (seat.count > MAX_BACKS) cards.appendChild(el("span", "web-hint", "+" + (seat.count - MAX_BACKS)));
    }
    if (!seat.you || revealed) box.appendChild(cards);
    var foreheads = revealed ? revealed.foreheads : seat.foreheads;
    if (foreheads && foreheads.length && !(seat.you && !revealed)) {
      var fore = el("div", "web-seat-fore", "forehead ");
      foreheads.forEach(function (code) {
        fore.appendChild(code === null ? UnoTable.back(state.colors, { mark: "?", size: "small" }) : smallCard(code, state.colors));
      });
      box.appendChild(fore);
    }
    if (revealed) box.appendChild(el("div", "web-points", revealed.points + (revealed.points === 1 ? " point" : " points")));
    if (played && played.seat === seat.seat) box.classList.add("web-last-player");
    return box;
  }

  function middle(state, view, played) {
    var node = el("div", "web-middle");
    var pile = el("div", "web-pile");
    pile.appendChild(UnoTable.back(state.colors, { size: "large" }));
    pile.appendChild(el("span", "web-caption", "draw pile " + view.pile));
    node.appendChild(pile);
    var top = el("div", "web-pile web-top");
    if (view.top) top.appendChild(UnoTable.card(view.top, state.colors, { size: "large" }));
    var by = el("span", "web-caption web-played-by");
    by.id = "played-by";
    if (played && played.card === view.top) {
      by.textContent = played.seat === view.viewer ? "played by you" : "played by " + state.names[played.seat];
      by.setAttribute("data-seat", String(played.seat));
    } else {
      by.textContent = "the first card";
    }
    top.appendChild(by);
    node.appendChild(top);
    var facts = el("div", "web-facts");
    var colour = el("div", "web-fact");
    if (view.color) {
      colour.appendChild(UnoTable.chip(view.color));
      colour.appendChild(document.createTextNode(" " + view.color));
    } else {
      colour.textContent = "colour to choose";
    }
    facts.appendChild(colour);
    facts.appendChild(el("div", "web-fact", view.direction === 1 ? "\u21bb to the left" : "\u21ba to the right"));
    if (view.pending_draw) facts.appendChild(el("div", "web-fact web-pending", "draw +" + view.pending_draw + " waits"));
    facts.appendChild(el("div", "web-fact web-hint", "round " + view.round));
    node.appendChild(facts);
    return node;
  }

  function renderTable(state, view, played, actor, reveal) {
    var box = $("table");
    box.textContent = "";
    box.setAttribute("data-players", String(view.players));
    box.appendChild(el("div", "web-felt"));
    var n = view.players;
    var showHands = reveal && view.done; // the game is over: the seats lay their cards down where they sit
    for (var k = 0; k < n; k++) {
      var seat = view.seats[(view.viewer + k) % n];
      var revealed = showHands ? reveal.seats[seat.seat] : null;
      var node = seatBox(state, view, seat, seat.you ? null : revealed, played, actor);
      if (seat.you) {
        node.classList.add("web-own");
        if (showHands) node.appendChild(el("div", "web-points", reveal.seats[seat.seat].points + " points"));
      }
      seatPlace(node, k, n);
      box.appendChild(node);
    }
    box.appendChild(middle(state, view, played));
  }

  /* A round ended while the match goes on: every hand as it was scored, face up. */
  function renderReveal(state, reveal, show) {
    var box = $("reveal");
    box.textContent = "";
    box.hidden = !show;
    if (!show) return;
    box.appendChild(el("h2", "", "Round " + reveal.round + " is over: " + state.names[reveal.winner] +
      " went out. The hands, face up:"));
    reveal.seats.forEach(function (seat) {
      var row = el("div", "web-reveal-row");
      row.setAttribute("data-seat", String(seat.seat));
      row.appendChild(el("span", "web-reveal-name", state.names[seat.seat]));
      var cards = el("span", "web-seat-cards web-revealed");
      seat.hand.concat(seat.foreheads).forEach(function (code) {
        cards.appendChild(smallCard(code, state.colors));
      });
      if (!seat.hand.length && !seat.foreheads.length) cards.appendChild(el("span", "web-hint", "no cards"));
      row.appendChild(cards);
      row.appendChild(el("span", "web-points", seat.points + (seat.points === 1 ? " point" : " points")));
      box.appendChild(row);
    });
  }

  /* ------------------------------------------------------------------------------------------ your seat */
  function renderActions(state, final) {
    var box = $("actions");
    box.textContent = "";
    if (!final) return;
    if (state.stalled) {
      renderResume(state.stalled, box);
      return;
    }
    state.actions.forEach(function (action) {
      var button = el("button", "web-action");
      button.type = "button";
      button.setAttribute("data-action-id", String(action.id));
      button.setAttribute("data-action", action.name);
      button.title = action.label + " (action " + action.id + ")";
      var color = colorOfAction(action.name);
      if (color) {
        button.appendChild(UnoTable.chip(color));
      } else if (/^play /.test(action.name)) {
        button.appendChild(UnoTable.card(action.name.slice(5), state.colors, { size: "small" }));
      }
      button.appendChild(el("span", "web-action-name", action.name));
      if (action.label && action.label !== action.name) button.appendChild(el("span", "web-action-label", action.label));
      button.addEventListener("click", function () {
        act(action.id);
      });
      box.appendChild(button);
    });
  }

  /* An agent whose model failed (its chat server down, slow or refusing) is waited on: ask it again, or let it
   * play its fallback move (POST /api/resume). */
  function renderResume(stalled, box) {
    var labels = { retry: "Ask it again", fallback: "Let it play its fallback move" };
    stalled.choices.forEach(function (how) {
      var button = el("button", "web-action web-resume", labels[how] || how);
      button.type = "button";
      button.setAttribute("data-resume", how);
      button.addEventListener("click", function () {
        send("POST", "/api/resume", { how: how, game: current ? current.game.number : null });
      });
      box.appendChild(button);
    });
  }

  function renderHand(state, view, final) {
    var box = $("hand");
    box.textContent = "";
    var me = view.seats[view.viewer];
    var playable = {};
    if (final) {
      state.actions.forEach(function (action) {
        if (/^play /.test(action.name)) playable[action.name.slice(5)] = action.id;
      });
    }
    box.classList.toggle("web-choosing", Object.keys(playable).length > 0);
    if (!me.hand.length) box.appendChild(el("span", "web-hint", "no cards"));
    me.hand.forEach(function (code) {
      var face = UnoTable.card(code, state.colors, { size: "large" });
      if (own(playable, code)) {
        var wrap = el("button", "web-playable");
        wrap.type = "button";
        wrap.title = "play " + code;
        wrap.appendChild(face);
        wrap.addEventListener("click", function () {
          act(playable[code]);
        });
        box.appendChild(wrap);
      } else {
        box.appendChild(face);
      }
    });
    $("you-facts").textContent = state.names[view.viewer] + " \u00b7 " + me.count + (me.count === 1 ? " card" : " cards") +
      " \u00b7 score " + me.score;
    renderForehead(state, me);
  }

  /* Your forehead cards: backs marked "?", each with the colours you guessed wrong for it (your observation). */
  function renderForehead(state, me) {
    var box = $("forehead");
    box.textContent = "";
    box.hidden = !me.foreheads.length;
    if (!me.foreheads.length) return;
    box.appendChild(el("div", "web-hand-title", "your forehead"));
    var known = state.forehead && state.forehead.wrong_guesses;
    if (!known || known.length > me.foreheads.length) known = [];
    me.foreheads.forEach(function (code, i) {
      var item = el("div", "web-forehead-card");
      item.appendChild(code === null ? UnoTable.back(state.colors, { mark: "?" }) : UnoTable.card(code, state.colors));
      var note = el("div", "web-known");
      var wrong = known[i] || [];
      if (wrong.length) {
        note.appendChild(document.createTextNode("not "));
        wrong.forEach(function (color) {
          var chip = UnoTable.chip(color);
          chip.classList.add("web-crossed");
          note.appendChild(chip);
        });
        note.title = "you guessed " + wrong.join(", ") + ": wrong";
        note.setAttribute("data-wrong", wrong.join(" "));
      } else {
        note.textContent = "no guess yet";
      }
      item.appendChild(note);
      box.appendChild(item);
    });
  }

  /* ------------------------------------------------------------------------------------------ what happened */
  function partsInto(node, parts, colors) {
    parts.forEach(function (part) {
      if (typeof part === "string") node.appendChild(document.createTextNode(part));
      else if (own(part, "card")) node.appendChild(smallCard(part.card, colors));
      else if (own(part, "colour")) {
        var chip = UnoTable.chip(part.colour);
        chip.classList.add("web-mini-chip");
        node.appendChild(chip);
        node.appendChild(document.createTextNode(part.colour));
      } else if (own(part, "strong")) node.appendChild(el("strong", "", part.strong));
      else if (own(part, "alarm")) node.appendChild(el("span", "web-alarm", part.alarm));
    });
  }

  function renderSince(state, count, me) {
    var list = $("since");
    list.textContent = "";
    state.since.slice(0, count).forEach(function (entry) {
      var item = el("li", "web-move");
      item.setAttribute("data-kind", entry.kind);
      if (entry.seat !== null && entry.seat !== undefined) item.setAttribute("data-seat", String(entry.seat));
      if (entry.seat === me) item.classList.add("web-mine");
      if (entry.parts) {
        partsInto(item, entry.parts, state.colors);
      } else if (entry.scores) {
        item.appendChild(el("div", "web-scores-title", entry.scores.title));
        var table = el("table", "web-scores");
        entry.scores.rows.forEach(function (row) {
          var tr = el("tr");
          tr.appendChild(el("td", "", row[0]));
          tr.appendChild(el("td", "web-num", row[1]));
          table.appendChild(tr);
        });
        item.appendChild(table);
      }
      list.appendChild(item);
    });
    list.scrollTop = list.scrollHeight;
  }

  function renderLog(state) {
    var list = $("log");
    list.textContent = "";
    state.log.forEach(function (line) {
      list.appendChild(el("li", "", line));
    });
    list.scrollTop = list.scrollHeight;
  }

  /* ------------------------------------------------------------------------------------------ settings */
  function renderLevels(state) {
    var box = $("levels");
    box.textContent = "";
    state.difficulties.forEach(function (level) {
      var button = el("button", "web-level");
      button.type = "button";
      button.setAttribute("data-level", level.level);
      button.setAttribute("aria-pressed", level.chosen ? "true" : "false");
      button.appendChild(el("span", "web-level-name", level.level));
      button.appendChild(el("span", "web-level-agent", level.agent));
      button.title = level.available ? "a new game against " + level.agent + " at every seat" : level.why;
      if (!level.available) {
        button.setAttribute("data-unavailable", "");
        button.disabled = true;
      }
      button.addEventListener("click", function () {
        send("POST", "/api/new", { difficulty: level.level });
      });
      box.appendChild(button);
    });
  }

  function renderSettings(state) {
    if (!paceChosen) {
      var select = $("pace");
      var value = String(state.pace);
      if (!Array.prototype.some.call(select.options, function (o) { return o.value === value; })) {
        var extra = el("option", "", value + " s");
        extra.value = value;
        select.appendChild(extra);
      }
      select.value = value;
    }
    if (current && current.game.number === state.game.number && $("set-variant").options.length) return;
    var g = state.game;
    var variant = $("set-variant");
    variant.textContent = "";
    state.variants.forEach(function (name) {
      var option = el("option", "", name);
      option.value = name;
      variant.appendChild(option);
    });
    variant.value = g.variant;
    $("set-players").value = g.players;
    $("set-seat").value = g.seat;
    $("set-episode").value = g.episode;
    $("set-opponents").value = g.opponents.join(" ");
    $("set-options").value = g.options.join(" ");
    $("agents-hint").textContent = "Opponents: any of " + state.agents.join(", ") +
      " (a search's budget, ITERATIONS or MSms, is capped for the page); files are named on the command line.";
  }

  /* ------------------------------------------------------------------------------------------ the page */
  /* Draw `state`, as it is now (frame null: your decision, if it is yours) or as it was at one of its frames. */
  function render(state, frame) {
    var final = frame === null;
    var view = final ? state.view : frame.view;
    var played = final ? state.played : frame.played;
    var reveal = state.reveal && (final || frame.reveal) ? state.reveal : null;
    document.title = view.done ? "UNO \u00b7 game over" : final && state.actions.length ? "UNO \u00b7 your turn" : "UNO";
    $("title").textContent = title(state);
    var result = $("result");
    var over = final && (state.result || state.problem);
    result.hidden = !over;
    result.textContent = !over ? "" : state.problem ||
      ((state.result || "") + (state.game.seed !== null ? " (seed " + state.game.seed + ")" : ""));
    $("save").hidden = !(final && state.record);
    $("open-record").hidden = !state.replay;
    var prompt = $("prompt");
    if (view.done) prompt.textContent = final ? "The game is over. Start a new game, or save this one as a record." : "";
    else if (final && state.stalled) prompt.textContent = state.stalled.message;
    else if (final && state.actions.length) prompt.textContent = state.prompt;
    else prompt.textContent = "Waiting for " + state.names[view.deciding] + "\u2026";
    prompt.classList.toggle("web-stalled", final && !!state.stalled);
    $("you").classList.toggle("web-your-turn", final && state.actions.length > 0);
    renderTable(state, view, played, final ? null : frame.seat, reveal);
    renderReveal(state, reveal, !!reveal && !view.done);
    renderActions(state, final);
    renderHand(state, view, final);
    renderSince(state, final ? state.since.length : frame.since, view.viewer);
    renderLevels(state);
    if (final) {
      renderLog(state);
      renderSettings(state);
      current = state;
      rendered += 1;
      document.body.setAttribute("data-rendered", String(rendered));
      document.body.setAttribute("data-done", view.done ? "true" : "false");
    }
    framesShown += 1;
    document.body.setAttribute("data-frame", String(framesShown));
    document.body.setAttribute("data-frame-at", String(Math.round(performance.now()))); // when it was drawn (ms)
    setBusy(busy);
  }

  function settingsFromForm() {
    return {
      variant: $("set-variant").value,
      players: parseInt($("set-players").value, 10),
      seat: parseInt($("set-seat").value, 10),
      episode: $("set-episode").value,
      opponents: $("set-opponents").value.split(/\s+/).filter(Boolean),
      options: $("set-options").value.split(/\s+/).filter(Boolean),
    };
  }

  $("new-game").addEventListener("click", function () {
    send("POST", "/api/new");
  });
  $("settings").addEventListener("submit", function (event) {
    event.preventDefault();
    send("POST", "/api/new", settingsFromForm());
  });
  $("pace").addEventListener("change", function () {
    paceChosen = true;
  });

  if (typeof UnoTable === "undefined") {
    showError("The card drawing (uno_env/static/table.js) did not load.");
    return;
  }
  request("GET", "/api/state").then(function (state) {
    render(state, null);
  }).catch(showError);
})();
