/* uno-web: the play page. It draws what the server sends (GET /api/state: the seat's table_view, its legal
 * actions, the narration, and since the seat's last decision the table after each step) and sends the id of the
 * action clicked (POST /api/act); the server decides everything. The cards and the table (an oval with the seats
 * round it in turn order, you at the bottom, the next seat to your left) are drawn by the shared UnoTable
 * (uno_env/static/table.js), the same table the replays show. A card is played by clicking it in your hand, a
 * colour chosen on its swatch; a click on a card you may not play says why (the server's words). Text goes on
 * the page with textContent only. Every POST carries the page's token (the meta uno-token the server put in the
 * page) in the X-Uno-Token header, and an action names its game (the server refuses one meant for another game).
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
    return "UNO " + g.variant + " \u00b7 " + g.players + " players \u00b7 " +
      (g.episode === "match" ? "a match to " + g.target_score : "a round");
  }

  /* The game's details: its number, rules, seats and, once it is over, its seed (a string: exact to the last digit,
     as JavaScript numbers are not beyond 2^53), with which the game can be dealt again. */
  function renderDetails(state) {
    var g = state.game;
    var rows = [
      ["game", "number " + g.number + " at this table"],
      ["variant", g.variant + ", " + g.players + " players, " + (g.episode === "match" ? "a match to " +
        g.target_score : "a round")],
      ["rule options", g.options.length ? g.options.join(", ") : "the variant's own"],
      ["your seat", String(g.seat)],
      ["opponents", g.opponents.join(", ")],
      ["seed", g.seed !== null ? g.seed : "shown when the game is over (it tells every hidden card)"],
    ];
    var list = $("details-list");
    list.textContent = "";
    rows.forEach(function (row) {
      list.appendChild(el("dt", "", row[0]));
      var value = el("dd", "", row[1]);
      if (row[0] === "seed") {
        value.id = "game-seed";
        value.setAttribute("data-seed", g.seed !== null ? g.seed : "");
      }
      list.appendChild(value);
    });
  }

  function smallCard(code, colors) {
    var card = UnoTable.card(code, colors, { size: "small" });
    card.classList.add("uno-mini");
    return card;
  }

  /* ------------------------------------------------------------------------------------------ the oval table */
  /* The table as your seat sees it: UnoTable.table (uno_env/static/table.js), the one drawing the replays use too;
     your hand is drawn below it (#hand), and at the game's end the hands are laid down where the seats sit. */
  function renderTable(state, view, played, actor, reveal) {
    var box = $("table");
    box.textContent = "";
    var showHands = reveal && view.done;
    box.appendChild(UnoTable.table(view, state.colors, {
      names: state.names, played: played, actor: actor, reveal: showHands ? reveal.seats : null, handElsewhere: true,
    }));
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
      var cards = el("span", "uno-seat-cards uno-revealed");
      seat.hand.concat(seat.foreheads).forEach(function (code) {
          cards.appendChild(smallCard(code, state.colors));
      });
      if (!seat.hand.length && !seat.foreheads.length) cards.appendChild(el("span", "web-hint", "no cards"));
      row.appendChild(cards);
      row.appendChild(el("span", "uno-hand-worth", "cards worth " + seat.points));
      box.appendChild(row);
    });
  }

  /* ------------------------------------------------------------------------------------------ your seat */
  /* The card code an action plays ("play R5", the card drawn, a card put on a Wild Emoji), or null. */
  function cardOfAction(name) {
    var match = /^play (\S+)$/.exec(name);
    return match ? match[1] : null;
  }

  function capital(text) {
    return text.charAt(0).toUpperCase() + text.slice(1);
  }

  /* The decision's buttons. A card is played by clicking it in your hand (no button repeats it); a colour is
     chosen on its swatch; the other choices (draw, keep, challenge, call UNO, swap with ...) are buttons. */
  function renderActions(state, final) {
    var box = $("actions");
    box.textContent = "";
    box.classList.remove("web-colours");
    if (!final) return;
    if (state.stalled) {
      renderResume(state.stalled, box);
      return;
    }
    var hand = state.view.seats[state.view.viewer].hand || [];
    var swatches = state.actions.filter(function (action) { return colorOfAction(action.name) !== null; });
    box.classList.toggle("web-colours", swatches.length > 0);
    state.actions.forEach(function (action) {
      var code = cardOfAction(action.name);
      if (code !== null && hand.indexOf(code) >= 0) return; // played from the hand
      var color = colorOfAction(action.name);
      var button = el("button", color ? "web-action web-swatch" : "web-action");
      button.type = "button";
      button.setAttribute("data-action-id", String(action.id));
      button.setAttribute("data-action", action.name);
      button.title = action.label;
      if (color) {
        var swatch = UnoTable.chip(color);
        swatch.classList.add("web-swatch-colour");
        button.appendChild(swatch);
        button.appendChild(el("span", "web-swatch-name", capital(action.label)));
        button.setAttribute("aria-label", action.label);
      } else {
        if (code !== null) button.appendChild(smallCard(code, state.colors));
        button.appendChild(el("span", "web-action-name", action.label));
      }
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

  /* Your hand, each card a button: one you may play now is lifted and outlined, and a click plays it; a click on
     another says in a line why it cannot be played (the server's reason: `hand_notes`). */
  function renderHand(state, view, final) {
    var box = $("hand");
    box.textContent = "";
    note(null);
    var me = view.seats[view.viewer];
    var playable = {};
    if (final) {
      state.actions.forEach(function (action) {
        var code = cardOfAction(action.name);
        if (code !== null) playable[code] = action;
      });
    }
    box.classList.toggle("web-choosing", Object.keys(playable).length > 0);
    if (!me.hand.length) box.appendChild(el("span", "web-hint", "no cards"));
    me.hand.forEach(function (code) {
      var wrap = el("button", "web-hand-card");
      wrap.type = "button";
      wrap.setAttribute("data-code", code);
      wrap.appendChild(UnoTable.card(code, state.colors, { size: "large" }));
      if (own(playable, code)) {
        var action = playable[code];
        wrap.classList.add("web-playable");
        wrap.setAttribute("data-action-id", String(action.id));
        wrap.setAttribute("data-action", action.name);
        wrap.title = action.label;
        wrap.addEventListener("click", function () {
          act(action.id);
        });
      } else {
        wrap.title = code + ": not playable now";
        wrap.setAttribute("aria-disabled", "true");
        wrap.addEventListener("click", function () {
          var notes = final && state.hand_notes ? state.hand_notes : {};
          note(own(notes, code) ? notes[code] : "Wait: the other players are still playing.");
        });
      }
      box.appendChild(wrap);
    });
    var points = me.score === 1 ? "1 point" : me.score + " points";
    $("you-facts").textContent = state.names[view.viewer] + " \u00b7 " + me.count +
      (me.count === 1 ? " card" : " cards") + " \u00b7 " + points;
    renderForehead(state, me);
  }

  /* A short line under your hand (why a card cannot be played); null clears it. */
  function note(text) {
    var line = $("hand-note");
    line.textContent = text || "";
    line.hidden = !text;
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
    result.textContent = !over ? "" : state.problem || state.result || "";
    if (final) renderDetails(state);
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
