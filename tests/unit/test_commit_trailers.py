"""The trailers every promotion commit ends with, as git itself parses them."""

from __future__ import annotations

import subprocess

from orchestrator.steps.message import with_trailers


def parsed(text: str) -> list[str]:
    done = subprocess.run(
        ["git", "interpret-trailers", "--parse"], input=text, capture_output=True, text=True,
        check=True,
    )  # fmt: skip
    return done.stdout.splitlines()


def test_added_to_the_trailer_block_a_template_ends_with() -> None:
    text = "Promote shop 1.2 to prod\n\nBody.\n\nPromotion-Run: run-1\n"
    out = with_trailers(text, [("Promotion-Product", "shop"), ("Promotion-Version", "1.2")])
    assert out.endswith("Promotion-Run: run-1\nPromotion-Product: shop\nPromotion-Version: 1.2\n")
    assert parsed(out) == [
        "Promotion-Run: run-1",
        "Promotion-Product: shop",
        "Promotion-Version: 1.2",
    ]


def test_a_new_paragraph_when_the_template_ends_with_prose() -> None:
    out = with_trailers("Ship it\n\nno trailers here\n", [("Promotion-Product", "shop")])
    assert out == "Ship it\n\nno trailers here\n\nPromotion-Product: shop\n"
    assert parsed(out) == ["Promotion-Product: shop"]
    only_subject = with_trailers("Ship it", [("Promotion-Product", "shop")])
    assert parsed(only_subject) == ["Promotion-Product: shop"]  # the subject is no trailer


def test_a_trailer_the_template_wrote_is_kept_and_not_repeated() -> None:
    text = "Subject\n\npromotion-product: shop\n"
    assert with_trailers(text, [("Promotion-Product", "cart")]) == text
    assert with_trailers(text, [("Promotion-Version", "")]) == text  # empty: left out


def test_fields_are_one_line_each_and_a_newline_cannot_end_a_trailer() -> None:
    out = with_trailers(
        "Subject\n",
        [("Promotion-Field", "image.digest=sha256:ab"), ("Promotion-Field", "note=a\nFake: x")],
    )
    assert parsed(out) == [
        "Promotion-Field: image.digest=sha256:ab",
        "Promotion-Field: note=a Fake: x",
    ]


def test_promoflow_reads_trailers_as_git_does() -> None:
    from orchestrator.history.trailers import parse

    messages = [
        "Promote shop 1 to dev\n\nBody.\n\nPromotion-Run: r\nPromotion-Product: shop\n",
        "Subject only\n",
        "Subject\n\nKey: value\n  continued here\nOther: x\n",
        "Subject\n\nKey: value\nnot a trailer line\n",
        "Subject\n\nKey: value\n\n\n",
        "Subject\nsecond line\n\nA: 1\n",
        "Key: looks like one\n",  # one paragraph: a subject
    ]
    for text in messages:
        ours = [f"{k}: {v}" for k, v in parse(text)]
        assert ours == parsed(text), text
