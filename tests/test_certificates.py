"""TLS certificates that certbot manages (templates/security_certificates.toml: cert.list,
cert.renew, cert.force_renew): the phrasings people use and the exact commands they plan
to, a named certificate, forcing only one named certificate, no undo, certbot missing
from the snapshot's packages (a recipe's `needs`), and what the risk engine and the
quality checks make of certbot's commands.

Plans are made against the homelab fixture, whose packages do not include certbot; the
plans that run it add certbot to a copy of them. Nothing here runs certbot.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reos.catalogue.schema import TemplateError, check_recipe
from reos.model.request import Kind
from reos.model.risk import RiskLevel
from reos.safety.risk import assess_argv
from reos.settings import Settings
from reos.system.snapshot import SCHEMA, SystemSnapshot

FIXTURES = Path(__file__).parent / "fixtures"
CERTBOT = {"name": "certbot", "version": "2.1.0-4"}


def _plan(request: str, *, certbot: bool = True, root: bool = False,
          packages_known: bool = True):  # noqa: ANN202
    from reos.engine import ReasoningEngine

    data = json.loads((FIXTURES / "homelab.json").read_text())
    data["schema"] = SCHEMA
    if certbot:
        data["packages"] = [*data["packages"], CERTBOT]
    if not packages_known:
        data["packages"] = None
    data["host"]["is_root"] = root
    engine = ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(data))
    return engine.plan(request)


# -- what ordinary phrasings plan to ----------------------------------------------------------
@pytest.mark.parametrize("request_", [
    "when do the certs expire", "cert expiry dates", "show me the certificates",
    "is the bakery's certificate still valid", "certbot certificates",
    "show the certificates", "list the let's encrypt certificates",
    "when does the cert for shop.example.org expire", "list the certs that expire soon",
    "is the certificate for example.org still valid"])
def test_asking_about_the_certificates_is_certbot_certificates_as_root(request_: str) -> None:
    plan = _plan(request_)
    assert plan.intent is not None and plan.intent.operation == "cert.list", plan.text()
    [step] = plan.steps
    assert step.argv == ["sudo", "-n", "certbot", "certificates"]
    assert step.read_only and plan.read_only and step.risk == RiskLevel.SAFE


def test_were_they_renewed_is_answered_by_the_list() -> None:
    plan = _plan("were the certificates renewed?")
    assert plan.intent is not None and plan.intent.operation == "cert.list", plan.text()


def test_as_root_certbot_runs_without_sudo() -> None:
    [step] = _plan("when do the certs expire", root=True).steps
    assert step.argv == ["certbot", "certificates"]


@pytest.mark.parametrize("request_", [
    "renew the certificates", "certbot renew", "renew the certs", "renew ssl certs",
    "Renew the Let's Encrypt certificates please", "renw the certs"])
def test_renewing_is_certbot_renew_of_those_that_are_due(request_: str) -> None:
    plan = _plan(request_)
    assert plan.intent is not None and plan.intent.operation == "cert.renew", plan.text()
    [step] = plan.steps
    assert step.argv == ["sudo", "-n", "certbot", "renew"]
    assert plan.kind == Kind.ACTION and plan.needs_approval
    assert step.risk == RiskLevel.MEDIUM
    assert "deploy hooks" in plan.text()


@pytest.mark.parametrize(("request_", "name"), [
    ("renew the cert for shop.example.org", "shop.example.org"),
    ("renew the certificate for example.org", "example.org"),
])
def test_a_named_certificate_is_renewed_alone(request_: str, name: str) -> None:
    plan = _plan(request_)
    assert plan.intent is not None and plan.intent.operation == "cert.renew", plan.text()
    [step] = plan.steps
    assert step.argv == ["sudo", "-n", "certbot", "renew", "--cert-name", name]


@pytest.mark.parametrize("request_", [
    "force renew the cert for example.org", "force renewal of the certificate for example.org",
    "force-renew the certificate for example.org"])
def test_forcing_a_named_certificate_adds_force_renewal(request_: str) -> None:
    plan = _plan(request_)
    assert plan.intent is not None and plan.intent.operation == "cert.force_renew", (
        plan.text())
    [step] = plan.steps
    assert step.argv == ["sudo", "-n", "certbot", "renew", "--cert-name", "example.org",
                         "--force-renewal"]
    assert "5 a week" in plan.text()


@pytest.mark.parametrize("request_", [
    "force renew all the certificates", "force renew the certificates",
    "certbot renew --force-renewal"])
def test_forcing_every_certificate_is_asked_never_planned(request_: str) -> None:
    plan = _plan(request_)
    assert plan.kind == Kind.CLARIFY and not plan.steps
    assert "which one certificate" in plan.text() and "never force them all" in plan.text()


def test_a_renewal_has_no_undo_and_says_so() -> None:
    from reos.catalogue.templates import load

    for request_ in ("renew the certificates", "force renew the cert for example.org"):
        plan = _plan(request_)
        [step] = plan.steps
        assert not step.reversible and step.rollback is None
        assert "This cannot be undone" in plan.text()
    operations = load().operations
    for op in ("cert.renew", "cert.force_renew"):
        assert operations[op].undo.startswith("none: ")
    assert operations["cert.renew"].asked == "cert.list"  # "were the certs renewed?"


# -- certbot not installed ------------------------------------------------------------------
@pytest.mark.parametrize("request_", [
    "when do the certs expire", "renew the certificates",
    "renew the cert for shop.example.org", "force renew the cert for example.org"])
def test_without_certbot_it_is_said_and_nothing_is_planned(request_: str) -> None:
    plan = _plan(request_, certbot=False)
    assert plan.intent is not None and plan.intent.operation.startswith("cert.")
    assert not plan.steps and not plan.question
    assert "certbot is not installed here" in plan.text()
    assert "I have planned nothing" in plan.text()


def test_unknown_packages_plan_the_steps_and_let_certbot_speak() -> None:
    plan = _plan("renew the certificates", packages_known=False)
    assert [s.argv for s in plan.steps] == [["sudo", "-n", "certbot", "renew"]]


def test_a_recipe_needs_a_list_of_package_names() -> None:
    steps = [{"title": "x", "argv": ["certbot", "renew"]}]
    assert check_recipe({"needs": ["certbot"], "steps": steps}, ("recipe", "a", "b"))
    with pytest.raises(TemplateError, match="needs"):
        check_recipe({"needs": "certbot", "steps": steps}, ("recipe", "a", "b"))


# -- the risk engine and the quality checks -------------------------------------------------
@pytest.mark.parametrize("argv", [
    ["certbot", "certificates"], ["certbot", "certificates", "--cert-name", "example.org"],
    ["certbot", "certificates", "-d", "example.org"]])
def test_listing_the_certificates_only_reads(argv: list[str]) -> None:
    verdict = assess_argv(argv)
    assert verdict.read_only and verdict.risk == RiskLevel.SAFE and not verdict.blocked


@pytest.mark.parametrize(("argv", "risk"), [
    (["certbot", "renew"], RiskLevel.MEDIUM),
    (["certbot", "renew", "--cert-name", "example.org", "--force-renewal"], RiskLevel.MEDIUM),
    (["certbot"], RiskLevel.MEDIUM),  # `run`: obtains a certificate, edits the web server
    (["certbot", "certonly", "-d", "example.org"], RiskLevel.MEDIUM),
    (["certbot", "certificates", "--config-dir", "/tmp/x"], RiskLevel.MEDIUM),
    (["certbot", "delete", "--cert-name", "example.org"], RiskLevel.HIGH),
    (["certbot", "--cert-name", "example.org", "delete"], RiskLevel.HIGH),
    (["certbot", "revoke", "--cert-path", "/etc/letsencrypt/live/x/cert.pem"], RiskLevel.HIGH),
])
def test_every_other_certbot_command_is_a_change(argv: list[str], risk: RiskLevel) -> None:
    verdict = assess_argv(argv)
    assert not verdict.read_only and verdict.risk == risk and verdict.needs_root
    if argv[1:2] != ["certificates"]:
        assert not verdict.reversible


def test_certbot_commands_that_ask_at_a_prompt_are_named() -> None:
    from reos.model.plan import Step
    from reos.planning.quality_commands import step_findings

    def names(argv: list[str]) -> set[str]:
        found, _, _ = step_findings(Step("s1", "x", argv), "model", "")
        return {a.name for a in found}

    assert "interactive" in names(["certbot", "certonly", "-d", "example.org"])
    assert "interactive" in names(["certbot", "delete", "--cert-name", "example.org"])
    assert "interactive" not in names(["certbot", "-n", "delete", "--cert-name", "x"])
    assert "interactive" not in names(["certbot", "renew"])


# -- the answer ------------------------------------------------------------------------------
CERTBOT_SAYS = """
- - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - -
Found the following certs:
  Certificate Name: bakery.example.org
    Serial Number: 4a1b2c3d4e5f
    Key Type: ECDSA
    Domains: bakery.example.org www.bakery.example.org
    Expiry Date: 2026-12-20 08:00:00+00:00 (VALID: 21 days)
    Certificate Path: /etc/letsencrypt/live/bakery.example.org/fullchain.pem
    Private Key Path: /etc/letsencrypt/live/bakery.example.org/privkey.pem
  Certificate Name: shop.example.org
    Serial Number: 5b2c3d4e5f60
    Key Type: RSA
    Domains: shop.example.org
    Expiry Date: 2027-02-10 08:00:00+00:00 (VALID: 73 days)
    Certificate Path: /etc/letsencrypt/live/shop.example.org/fullchain.pem
    Private Key Path: /etc/letsencrypt/live/shop.example.org/privkey.pem
  Certificate Name: old.example.org
    Domains: old.example.org
    Expiry Date: 2026-10-01 08:00:00+00:00 (INVALID: EXPIRED)
    Certificate Path: /etc/letsencrypt/live/old.example.org/fullchain.pem
    Private Key Path: /etc/letsencrypt/live/old.example.org/privkey.pem
- - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - -
"""


def test_the_answer_says_each_certificate_its_expiry_and_what_is_due_first() -> None:
    from reos.model.report import StepResult
    from reos.words.answers.common import ANSWERS
    from reos.words.conversation import Voice

    said = ANSWERS["cert_list"]([StepResult("s1", True, 0, CERTBOT_SAYS)], {}, Voice())
    lines = said.splitlines()
    assert lines[0] == "certbot manages 3 certificates:"
    assert "bakery.example.org (www.bakery.example.org): valid until 2026-12-20, 21 more " \
           "days (due for renewal)" in said
    assert "old.example.org: invalid: expired, expiry date 2026-10-01" in said
    assert "shop.example.org: valid until 2027-02-10, 73 more days" in lines[-1]
    none = ANSWERS["cert_list"]([StepResult("s1", True, 0, "No certificates found.\n")], {},
                                Voice())
    assert none == "certbot manages no certificates here."
