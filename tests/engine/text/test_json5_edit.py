"""A JSON5 value set in place (engine/text/json5_edit.py): the bytes outside the value (or the member
inserted) stay as the person wrote them, comments, trailing commas, quotes, line endings and key
order included; a new member copies its neighbours' layout."""

from __future__ import annotations

import json5
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dreamdesk.engine.text.json5_edit import Json5EditError, parse, set_value

HAND = """// my OpenClaw, tidied by hand
{
  agents: {
    defaults: {
      bootstrapMaxChars: 6000, // per file; MEMORY.md got cut at 20k
      'workspace': "~/claw",
    },
  },
  /* the gateway */ gateway: { port: 18789, url: "http://x/*not a comment*/", },
}
"""


def test_a_value_is_replaced_and_nothing_else_moves():
    out = set_value(HAND, ("agents", "defaults", "bootstrapMaxChars"), 9000)
    assert out == HAND.replace("bootstrapMaxChars: 6000,", "bootstrapMaxChars: 9000,")


def test_a_missing_key_joins_its_object_in_the_style_of_its_neighbours():
    """Bare keys by majority, the trailing comma kept, the comment left on its own line."""
    out = set_value(HAND, ("agents", "defaults", "bootstrapTotalMaxChars"), 30000)
    assert out == HAND.replace("""      'workspace': "~/claw",\n""",
                               """      'workspace': "~/claw",\n      bootstrapTotalMaxChars: 30000,\n""")


def test_missing_objects_are_made_on_lines_like_the_document():
    out = set_value(HAND, ("plugins", "entries", "memory-core", "config", "dreaming", "frequency"), "0 4 * * *")
    assert out == HAND.replace("""port: 18789, url: "http://x/*not a comment*/", },\n}""", """port: 18789, url: "http://x/*not a comment*/", },
  plugins: {
    entries: {
      "memory-core": {
        config: {
          dreaming: {
            frequency: "0 4 * * *",
          },
        },
      },
    },
  },
}""")


OPENCLAW_WRITTEN = """{
  "agents": {
    "defaults": {
      "workspace": "/w"
    }
  },
  "plugins": {
    "entries": {
      "codex": {
        "config": {}
      }
    }
  }
}
"""


def test_json_as_openclaw_writes_it_stays_json():
    out = set_value(OPENCLAW_WRITTEN, ("plugins", "entries", "memory-core", "config", "dreaming", "enabled"), False)
    assert out == OPENCLAW_WRITTEN.replace("""        "config": {}
      }
""", """        "config": {}
      },
      "memory-core": {
        "config": {
          "dreaming": {
            "enabled": false
          }
        }
      }
""")
    out = set_value(OPENCLAW_WRITTEN, ("plugins", "entries", "codex", "config", "x"), 1)
    assert out == OPENCLAW_WRITTEN.replace('"config": {}', '"config": {\n          "x": 1\n        }')


def test_a_line_comment_after_the_last_member_stays_on_its_line():
    text = '{\n  "a": 1 // one\n}\n'
    assert set_value(text, ("b",), 2) == '{\n  "a": 1, // one\n  "b": 2\n}\n'


def test_a_comment_in_an_empty_object_is_kept():
    assert set_value('{\n  "a": { // none yet\n  }\n}', ("a", "b"), 2) == '{\n  "a": { // none yet\n    "b": 2\n  }\n}'
    assert set_value('{"a": {/* none */}}', ("a", "b"), 2) == '{"a": {"b": 2 /* none */}}'


def test_crlf_and_tabs_are_the_documents_own():
    text = '{\r\n\t"a": {\r\n\t\t"b": 1\r\n\t}\r\n}\r\n'
    assert set_value(text, ("a", "c"), True) == '{\r\n\t"a": {\r\n\t\t"b": 1,\r\n\t\t"c": true\r\n\t}\r\n}\r\n'


def test_a_document_on_one_line_stays_on_one_line():
    assert set_value('{"a": {"b": 1}}', ("a", "c"), "x") == '{"a": {"b": 1, "c": "x"}}'
    assert set_value('{ "a": 1, }', ("b", "c"), 2) == '{ "a": 1, "b": {"c": 2}, }'


def test_the_last_of_a_repeated_key_is_the_one_set():
    """JSON5 (and OpenClaw) keep the last of a repeated key."""
    text = '{"a": 1, "a": 2}'
    assert set_value(text, ("a",), 3) == '{"a": 1, "a": 3}'
    assert json5.loads(set_value(text, ("a",), 3)) == {"a": 3}


def test_strings_keep_their_quotes_and_new_ones_are_escaped():
    text = "{f: '0 3 * * *', \"memory\\u002dcore\": {}}"
    assert set_value(text, ("f",), "0 4 * * *") == "{f: '0 4 * * *', \"memory\\u002dcore\": {}}"
    out = set_value(text, ("memory-core", "x"), 'say "hi"\n')
    assert out == "{f: '0 3 * * *', \"memory\\u002dcore\": {\"x\": 'say \"hi\"\\n'}}"   # a tie: JSON's way
    assert json5.loads(out)["memory-core"] == {"x": 'say "hi"\n'}


def test_what_cannot_be_set_without_losing_text_is_refused_in_words():
    with pytest.raises(Json5EditError, match=r"plugins\.entries holds true, not an object"):
        set_value('{"plugins": {"entries": true}}', ("plugins", "entries", "memory-core", "x"), 1)
    with pytest.raises(Json5EditError, match="holds an object in the file"):
        set_value('{"a": {"b": 1}}', ("a",), 1)
    with pytest.raises(Json5EditError, match="not an object"):
        set_value("[1, 2]", ("a",), 1)
    with pytest.raises(Json5EditError, match=r"agents\.list\[3\] is not in the file"):
        set_value('{"agents": {"list": [{}]}}', ("agents", "list", 3, "x"), 1)
    with pytest.raises(Json5EditError, match="unclosed comment at line 2"):
        parse('{\n/* "a": 1\n}')


def test_a_value_inside_a_list_is_set():
    text = '{agents: {list: [{id: "main"}, {id: "work", bootstrapMaxChars: 100}]}}'
    assert set_value(text, ("agents", "list", 1, "bootstrapMaxChars"), 200) == text.replace("100", "200")


_KEYS = st.sampled_from(["a", "b", "memory-core", "x y", "$z"])
_SCALARS = st.one_of(st.booleans(), st.integers(-10**6, 10**6), st.text(max_size=8))
_TREES = st.recursive(_SCALARS, lambda inner: st.dictionaries(_KEYS, inner, max_size=3), max_leaves=8)


@settings(max_examples=60, deadline=None)
@given(_TREES.filter(lambda t: isinstance(t, dict)), st.lists(_KEYS, min_size=1, max_size=3), _SCALARS,
       st.sampled_from(["json", "json5"]))
def test_what_is_set_reads_back_and_the_rest_reads_the_same(tree, path, value, how):
    """Whatever the document and the path, the edited text reads (json5, as the home layer reads
    it) as the old tree with only that value set; a step that is no object is refused instead."""
    import json
    text = json.dumps(tree, indent=2, ensure_ascii=False) if how == "json" else \
        "// c\n" + json5.dumps(tree, indent=4, trailing_commas=True, quote_keys=False, ensure_ascii=False)
    want = json.loads(json.dumps(tree))
    node = want
    for k in path[:-1]:
        nxt = node.setdefault(k, {})
        if not isinstance(nxt, dict):
            with pytest.raises(Json5EditError):
                set_value(text, tuple(path), value)
            return
        node = nxt
    if isinstance(node.get(path[-1]), dict):
        with pytest.raises(Json5EditError):
            set_value(text, tuple(path), value)
        return
    node[path[-1]] = value
    assert json5.loads(set_value(text, tuple(path), value)) == want
